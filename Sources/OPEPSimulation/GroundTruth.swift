import Foundation
import OPEPKit

/// One exhalation through the device as it was simulated. Times are seconds from the start of the
/// session; `index` counts breaths over the whole session and `set` counts sets, both from 0.
public struct TrueBreath: Sendable, Codable, Hashable {
    public var index: Int
    public var set: Int
    /// Start of the exhalation sound.
    public var start: Double
    /// End of the exhalation sound.
    public var end: Double
    /// When the rocker starts fluttering (the pitch reaches the device's lowest frequency).
    public var flutterStart: Double
    /// When the rocker stops fluttering.
    public var flutterEnd: Double
    /// The plateau pressure drawn for this breath, in cmH2O.
    public var plateauPressure: Double
    /// Mean pressure over the flutter, in cmH2O (the device line at the mean pitch).
    public var meanPressure: Double
    /// Mean flutter pitch over the flutter, in Hz.
    public var meanPitch: Double
    /// The exact pressure curve, relative to `start`.
    public var trajectory: PressureTrajectory
    /// How the pitch departs from the device line at that pressure; nil: it follows the line.
    public var contour: PitchContour?

    /// The flutter pitch in Hz at `time`, nil outside `flutterStart...flutterEnd`.
    ///
    /// This is the very function the renderer integrates into the rocker's phase.
    public func pitch(at time: Double, device: DeviceProfile) -> Double? {
        guard time >= flutterStart, time <= flutterEnd else { return nil }
        var pitch = device.pitch(forPressure: trajectory.pressure(at: time - start))
        if let contour {
            pitch *= contour.factor(sinceStart: time - flutterStart, untilEnd: flutterEnd - time, elapsed: time - start)
        }
        return min(max(pitch, device.lowerFrequency), device.upperFrequency)
    }

    init(
        index: Int, set: Int, start: Double, trajectory: PressureTrajectory, device: DeviceProfile,
        contour: PitchContour? = nil
    ) {
        self.index = index
        self.set = set
        self.start = start
        self.trajectory = trajectory
        self.contour = contour
        end = start + trajectory.duration
        plateauPressure = trajectory.plateau
        let crossings = trajectory.crossings(of: device.pressure(forPitch: device.lowerFrequency))
        flutterStart = start + crossings.first
        flutterEnd = start + crossings.last
        meanPitch = 0
        meanPressure = 0
        let steps = max(1, Int((flutterEnd - flutterStart) * 1000))
        let step = (flutterEnd - flutterStart) / Double(steps)
        meanPitch = (0..<steps).reduce(0.0) { sum, k in
            sum + (pitch(at: flutterStart + (Double(k) + 0.5) * step, device: device) ?? 0)
        } / Double(steps)
        meanPressure = device.pressure(forPitch: meanPitch)
    }
}

/// A breath's departures from the device line, relative to the pitch it gives: a slew that fades
/// over the first `slewTime` of the flutter, another that grows over its last `slewTime`, and a
/// slow sinusoidal wander.
public struct PitchContour: Sendable, Codable, Hashable {
    public var onsetSlew: Double
    public var offsetSlew: Double
    /// Seconds of each slew.
    public var slewTime: Double
    public var wanderDepth: Double
    /// In Hz.
    public var wanderFrequency: Double
    /// In radians, at the start of the exhalation sound.
    public var wanderPhase: Double

    public init(
        onsetSlew: Double, offsetSlew: Double, slewTime: Double, wanderDepth: Double, wanderFrequency: Double,
        wanderPhase: Double
    ) {
        self.onsetSlew = onsetSlew
        self.offsetSlew = offsetSlew
        self.slewTime = slewTime
        self.wanderDepth = wanderDepth
        self.wanderFrequency = wanderFrequency
        self.wanderPhase = wanderPhase
    }

    /// The factor on the pitch `sinceStart` seconds after the flutter started, `untilEnd` seconds
    /// before it ends and `elapsed` seconds after the exhalation sound started.
    @inline(__always)
    func factor(sinceStart: Double, untilEnd: Double, elapsed: Double) -> Double {
        1 + onsetSlew * (1 - smoothstep(sinceStart / slewTime)) + offsetSlew * (1 - smoothstep(untilEnd / slewTime))
            + wanderDepth * sin(2 * Double.pi * wanderFrequency * elapsed + wanderPhase)
    }
}

/// A sound of the patient's that is not an exhalation through the device, in seconds from the
/// start of the session.
public struct TrueSound: Sendable, Codable, Hashable {
    public var start: Double
    public var end: Double
}

/// One huff cough: a forceful open-glottis exhalation off the device (no flutter).
public struct TrueHuff: Sendable, Codable, Hashable {
    public var start: Double
    public var end: Double
    /// The set it closes, from 0.
    public var set: Int
}

/// What really happened in a simulated session, to test and evaluate an engine against.
public struct GroundTruth: Sendable, Codable {
    public var configuration: SimulationConfiguration
    /// Session length in seconds.
    public var duration: Double
    /// The exhalations through the device, in time order.
    public var breaths: [TrueBreath]
    /// The huff coughs, in time order.
    public var huffs: [TrueHuff]
    /// Exhalations without the device (real breath only), in time order: any breath found in one
    /// is a false breath.
    public var plainExhalations: [TrueSound]

    init(configuration: SimulationConfiguration, duration: Double, breaths: [TrueBreath], huffs: [TrueHuff], plainExhalations: [TrueSound] = []) {
        self.configuration = configuration
        self.duration = duration
        self.breaths = breaths
        self.huffs = huffs
        self.plainExhalations = plainExhalations
    }

    private enum CodingKeys: String, CodingKey {
        case configuration, duration, breaths, huffs, plainExhalations
    }

    /// Decodes truth written by any release: a missing `plainExhalations` is none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        configuration = try c.decode(SimulationConfiguration.self, forKey: .configuration)
        duration = try c.decode(Double.self, forKey: .duration)
        breaths = try c.decode([TrueBreath].self, forKey: .breaths)
        huffs = try c.decodeIfPresent([TrueHuff].self, forKey: .huffs) ?? []
        plainExhalations = try c.decodeIfPresent([TrueSound].self, forKey: .plainExhalations) ?? []
    }

    /// The breath whose exhalation sound contains `time`, if any.
    public func breath(at time: Double) -> TrueBreath? {
        var low = 0
        var high = breaths.count
        while low < high {
            let middle = (low + high) / 2
            if breaths[middle].start <= time { low = middle + 1 } else { high = middle }
        }
        guard low > 0, time <= breaths[low - 1].end else { return nil }
        return breaths[low - 1]
    }

    /// True flutter pitch in Hz at time t, nil when the rocker is not fluttering.
    public func pitch(at time: Double) -> Double? {
        breath(at: time)?.pitch(at: time, device: configuration.device)
    }

    /// True pressure in cmH2O at time t (the device line at the true pitch), nil when the rocker
    /// is not fluttering.
    public func pressure(at time: Double) -> Double? {
        pitch(at: time).map(configuration.device.pressure(forPitch:))
    }

    /// Whether `time` lies inside a breath's exhalation sound, `start...end`.
    public func isExhaling(at time: Double) -> Bool {
        breath(at: time) != nil
    }
}
