import Foundation
import OPEPKit
import OPEPSimulation

/// The causes of lost coverage a simulated session drew, in the signal check's words: what the
/// check should name when the session is not measured well (issue 23). Each is read from the
/// simulation's own parameters with a fixed physical limit, never from the engine's output:
/// - ``SignalProblem/clipped``: the amplifier clips (any `chain.clipHeadroomDB`);
/// - ``SignalProblem/gainControl``: the phone applies automatic gain control;
/// - ``SignalProblem/tooNoisy``: continuous interference within `loudInterferenceDB` (15 dB) of a
///   nominal exhalation (coughs between breaths do not count);
/// - ``SignalProblem/tooQuiet``: a nominal exhalation less than `quietMarginDB` (15 dB) above the
///   room tone, or above 8-bit quantisation noise, as it reaches full scale;
/// - ``SignalProblem/tooFar``: the envelope's depth left after the room's echo, modulation depth
///   times the direct share of the energy (all of it without a varied chain), under
///   `shallowDepth` (0.3);
/// - ``SignalProblem/bandLimited``: a sample rate under 11.025 kHz or a telephone line.
public enum DrawnCauses {
    /// Interference this close to a nominal exhalation, or louder, in dB.
    public static let loudInterferenceDB = -15.0
    /// Least level of a nominal exhalation over the room tone, in dB.
    public static let quietMarginDB = 15.0
    /// Least depth of the envelope after the room's echo.
    public static let shallowDepth = 0.3
    /// Lowest sample rate with a full band for the tracker, in Hz.
    public static let narrowRate = 11025.0
    /// RMS of a nominal exhalation at the phone's full scale, before the recording level, in dBFS.
    static let nominalExhalationDBFS = -20.0
    /// RMS of rounding to 8 bits (a step of 1/127 over the square root of 12), in dBFS.
    static let eightBitNoiseDBFS = -52.8

    /// The causes `configuration` drew, in ``SignalProblem``'s order.
    public static func of(_ configuration: SimulationConfiguration) -> [SignalProblem] {
        let chain = configuration.variation?.chain ?? RecordingChain()
        var causes: Set<SignalProblem> = []
        if chain.clipHeadroomDB != nil { causes.insert(.clipped) }
        if chain.gainControl != nil { causes.insert(.gainControl) }
        let interference = configuration.variation?.recording.map { $0.bursts ? -Double.infinity : $0.levelDB }
            ?? configuration.noiseLevelDB
        if interference >= loudInterferenceDB { causes.insert(.tooNoisy) }
        let floor = max(chain.roomToneDBFS, chain.bitDepth == 8 ? eightBitNoiseDBFS : -.infinity)
        if nominalExhalationDBFS + chain.levelDB - floor < quietMarginDB { causes.insert(.tooQuiet) }
        let direct = pow(10, chain.directToReverberantDB / 10)
        let directShare = configuration.variation == nil ? 1 : direct / (1 + direct)
        if configuration.modulationDepth * directShare < shallowDepth { causes.insert(.tooFar) }
        if configuration.sampleRate < narrowRate || chain.codec == .telephone { causes.insert(.bandLimited) }
        return SignalProblem.allCases.filter(causes.contains)
    }

    /// Least share of the coverage a case lacks of its target that taking a cause away must win
    /// back for the cause to count as one that cost it (``EvaluationResult/costlyCauses``).
    public static let recoveredShare = 0.5

    /// `configuration` with `cause` taken away, everything else (the seed's draws included) as it
    /// was: no clipping; no gain control; the interference 40 dB under a nominal exhalation and no
    /// real recording; the room tone at -80 dBFS and no 8-bit rounding; the phone near the device
    /// (9 dB direct to reverberant, modulation depth at least 0.85); a 16 kHz recording without
    /// the telephone line.
    public static func removing(_ cause: SignalProblem, from configuration: SimulationConfiguration) -> SimulationConfiguration {
        var c = configuration
        var chain = c.variation?.chain ?? RecordingChain()
        switch cause {
        case .clipped: chain.clipHeadroomDB = nil
        case .gainControl: chain.gainControl = nil
        case .tooNoisy:
            c.noiseLevelDB = -40
            c.variation?.recording = nil
        case .tooQuiet:
            chain.roomToneDBFS = -80
            if chain.bitDepth == 8 { chain.bitDepth = 16 }
        case .tooFar:
            chain.directToReverberantDB = 9
            c.modulationDepth = max(c.modulationDepth, 0.85)
        case .bandLimited:
            if chain.codec == .telephone { chain.codec = nil }
            c.sampleRate = max(c.sampleRate, 16000)
        case .noFlutter: break
        }
        c.variation?.chain = chain
        return c
    }
}
