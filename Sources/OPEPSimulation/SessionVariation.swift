import Foundation

/// How one session departs from the nominal simulation: the device's and the patient's sound, the
/// way it reaches the recording and a real recording mixed under it. Every value is in real units;
/// ``random(seed:recordings:)`` draws them over physically plausible ranges.
public struct SessionVariation: Sendable, Codable, Hashable {
    public var sound: SoundVariation
    public var chain: RecordingChain
    /// A real recording playing under the session, if any.
    public var recording: RecordedInterference?
    /// Real breath noise instead of steady shaped noise, if set.
    public var breath: RealBreath?

    public init(
        sound: SoundVariation, chain: RecordingChain, recording: RecordedInterference? = nil, breath: RealBreath? = nil
    ) {
        self.sound = sound
        self.chain = chain
        self.recording = recording
        self.breath = breath
    }

    /// The variation drawn from `seed`; `recordings` are the names of the real recordings it may
    /// mix in (those under `coughs/` play as bursts between breaths, the others continuously).
    public static func random(seed: UInt64, recordings: [String] = []) -> SessionVariation {
        var g = SeededGenerator(seed: seed, stream: .variation)
        let sound = SoundVariation.random(using: &g)
        let chain = RecordingChain.random(using: &g)
        let recording = recordings.isEmpty || g.chance(0.4) ? nil : RecordedInterference.random(from: recordings, using: &g)
        var b = SeededGenerator(seed: seed, stream: .realBreath)
        let breath = b.chance(RealBreath.share) ? RealBreath.random(using: &b) : nil
        return SessionVariation(sound: sound, chain: chain, recording: recording, breath: breath)
    }

    /// Checks every parameter against its documented range.
    public func validate() throws(SimulationError) {
        try sound.validate()
        try chain.validate()
        try recording?.validate()
        try breath?.validate()
    }

    /// A few words on what was drawn, for tables.
    public var summary: String {
        var parts = [sound.summary, chain.summary]
        if let recording { parts.append(recording.summary) }
        if let breath { parts.append(breath.summary) }
        return parts.joined(separator: ", ")
    }
}

/// Real breath: the exhaled air's own noise as a microphone near the mouth hears it (narrow,
/// low-frequency, its loudness fluctuating by itself; see ``BreathFlowSound``), the breath
/// starting before the rocker opens and going on after it stalls, audible breathing between the
/// exhalations through the device, and exhalations without the device at all (which must give no
/// breath). Each breath draws its resonances, drift and fluctuation around these values.
public struct RealBreath: Sendable, Codable, Hashable {
    /// Share of random sessions drawn with real breath.
    public static let share = 0.6

    /// RMS of the breath's own loudness fluctuation relative to its mean, 0.1...0.5 (random draws
    /// 0.15...0.5, which with the noise's own fluctuation gives real breath's envelope figures).
    public var fluctuationDepth: Double
    /// Lip and mouth clicks per second, 0...2.
    public var mouthNoiseRate: Double
    /// Level of the unmodulated breath noise at the mouth against the device's sound, -30...-10 dB:
    /// all that is heard before the rocker opens and after it stalls.
    public var leakDB: Double
    /// Longest time the pressure takes to open the rocker (each breath draws from 0.1 s to it), 0.15...0.6 s.
    public var longestRamp: Double
    /// Level of the breathing between exhalations through the device (inhalations and plain
    /// exhalations) against a nominal exhalation, -20...0 dB.
    public var breathingDB: Double
    /// Exhalations without the device, 0...3, before a set's first breath or after its last (so
    /// that they never lengthen a pause inside a set beyond the 8 s that ends one).
    public var plainExhalations: Int

    public init(
        fluctuationDepth: Double = 0.25, mouthNoiseRate: Double = 0.5, leakDB: Double = -20, longestRamp: Double = 0.4,
        breathingDB: Double = -10, plainExhalations: Int = 2
    ) {
        self.fluctuationDepth = fluctuationDepth
        self.mouthNoiseRate = mouthNoiseRate
        self.leakDB = leakDB
        self.longestRamp = longestRamp
        self.breathingDB = breathingDB
        self.plainExhalations = plainExhalations
    }

    static func random(using g: inout SeededGenerator) -> RealBreath {
        RealBreath(
            fluctuationDepth: g.uniform(0.15...0.5), mouthNoiseRate: g.uniform(0...2), leakDB: g.uniform(-30...(-10)),
            longestRamp: g.uniform(0.15...0.6), breathingDB: g.uniform(-20...0), plainExhalations: g.integer(0...3))
    }

    public func validate() throws(SimulationError) {
        try check("breath.fluctuationDepth", fluctuationDepth, 0.1...0.5)
        try check("breath.mouthNoiseRate", mouthNoiseRate, 0...2, unit: " /s")
        try check("breath.leakDB", leakDB, -30...(-10), unit: " dB")
        try check("breath.longestRamp", longestRamp, 0.15...0.6, unit: " s")
        try check("breath.breathingDB", breathingDB, -20...0, unit: " dB")
        try check("breath.plainExhalations", plainExhalations, 0...3)
    }

    var summary: String {
        "real breath \(Int((fluctuationDepth * 100).rounded()))%" + (plainExhalations > 0 ? " +\(plainExhalations) plain" : "")
    }
}

/// The device's and the patient's sound.
public struct SoundVariation: Sendable, Codable, Hashable {
    /// Range each exhalation's length is drawn from, within 1.5...4.5 s.
    public var exhalationDurations: ClosedRange<Double>
    /// Exponent p of the rocker's pulse `sin(πx)^(2p)`, 0.5 (smooth swells) ... 12 (sharp clicks).
    public var pulseExponent: Double
    /// Amplitude of the rocker's closing click relative to the flow noise, 0...3 (nominal 1.5).
    public var clickLevel: Double
    /// Amplitude of a tone at the flutter pitch itself, 0...1.5 (nominal 0.5).
    public var fundamentalLevel: Double
    /// Amplitude of its 2nd and 3rd harmonics together, 0...1.5 (nominal 0).
    public var harmonicLevel: Double
    /// Largest cycle-to-cycle change of a pulse's amplitude, 0...0.3 (nominal 0.08).
    public var cycleGainVariation: Double
    /// RMS cycle-to-cycle variation of the period, relative, 0...0.05 (nominal 0). Noise around the
    /// true pitch: the ground truth stays smooth.
    public var periodJitter: Double
    /// Relative pitch departure at the flutter's start, gliding away over `slewTime`: 0 or
    /// ±0.3...0.4.
    public var onsetSlew: Double
    /// Relative pitch departure at the flutter's end, reached over the last `slewTime`: 0 or ±0.3...0.4.
    public var offsetSlew: Double
    /// Seconds of each slew, 0.2...0.5.
    public var slewTime: Double
    /// Relative amplitude of a slow sinusoidal pitch wander, 0...0.06.
    public var wanderDepth: Double
    /// Frequency of the wander in Hz, 0.05...0.5.
    public var wanderFrequency: Double
    /// Band of the exhaled flow noise and the inhalations in Hz: the lower edge 80...200, the upper
    /// 500...6000 (nominal 200...6000).
    public var breathNoiseBand: ClosedRange<Double>

    public init(
        exhalationDurations: ClosedRange<Double> = 2.5...4.5, pulseExponent: Double = 2.5, clickLevel: Double = 1.5,
        fundamentalLevel: Double = 0.5, harmonicLevel: Double = 0, cycleGainVariation: Double = 0.08,
        periodJitter: Double = 0, onsetSlew: Double = 0, offsetSlew: Double = 0, slewTime: Double = 0.3,
        wanderDepth: Double = 0, wanderFrequency: Double = 0.2, breathNoiseBand: ClosedRange<Double> = 200...6000
    ) {
        self.exhalationDurations = exhalationDurations
        self.pulseExponent = pulseExponent
        self.clickLevel = clickLevel
        self.fundamentalLevel = fundamentalLevel
        self.harmonicLevel = harmonicLevel
        self.cycleGainVariation = cycleGainVariation
        self.periodJitter = periodJitter
        self.onsetSlew = onsetSlew
        self.offsetSlew = offsetSlew
        self.slewTime = slewTime
        self.wanderDepth = wanderDepth
        self.wanderFrequency = wanderFrequency
        self.breathNoiseBand = breathNoiseBand
    }

    static func random(using g: inout SeededGenerator) -> SoundVariation {
        let shortest = g.uniform(1.5...3)
        func slew() -> Double { g.chance(0.2) ? 0 : (g.chance(0.5) ? -1 : 1) * g.uniform(0.3...0.4) }
        return SoundVariation(
            exhalationDurations: shortest...g.uniform((shortest + 0.5)...4.5),
            pulseExponent: g.logUniform(0.5...12),
            clickLevel: g.chance(0.25) ? 0 : g.uniform(0...3),
            fundamentalLevel: g.chance(0.3) ? 0 : g.uniform(0...1.5),
            harmonicLevel: g.chance(0.3) ? 0 : g.uniform(0...1.5),
            cycleGainVariation: g.uniform(0...0.3),
            periodJitter: g.uniform(0...0.05),
            onsetSlew: slew(), offsetSlew: slew(),
            slewTime: g.uniform(0.2...0.5),
            wanderDepth: g.uniform(0...0.06),
            wanderFrequency: g.logUniform(0.05...0.5),
            breathNoiseBand: g.logUniform(80...200)...g.logUniform(500...6000))
    }

    public func validate() throws(SimulationError) {
        try check("sound.exhalationDurations", exhalationDurations, within: 1.5...4.5, unit: " s")
        try check("sound.pulseExponent", pulseExponent, 0.5...12)
        try check("sound.clickLevel", clickLevel, 0...3)
        try check("sound.fundamentalLevel", fundamentalLevel, 0...1.5)
        try check("sound.harmonicLevel", harmonicLevel, 0...1.5)
        try check("sound.cycleGainVariation", cycleGainVariation, 0...0.3)
        try check("sound.periodJitter", periodJitter, 0...0.05)
        try check("sound.onsetSlew", abs(onsetSlew), 0...0.4)
        try check("sound.offsetSlew", abs(offsetSlew), 0...0.4)
        try check("sound.slewTime", slewTime, 0.2...0.5, unit: " s")
        try check("sound.wanderDepth", wanderDepth, 0...0.06)
        try check("sound.wanderFrequency", wanderFrequency, 0.05...0.5, unit: " Hz")
        try check("sound.breathNoiseBand.lowerBound", breathNoiseBand.lowerBound, 80...200, unit: " Hz")
        try check("sound.breathNoiseBand.upperBound", breathNoiseBand.upperBound, 500...6000, unit: " Hz")
    }

    var summary: String {
        let band = breathNoiseBand.upperBound < 1500 ? "dark" : "bright"
        return "p\(rounded(pulseExponent, 1)) jit \(Int((periodJitter * 100).rounded()))% \(band)"
    }
}

/// The way the sound reaches the recording: distance and room, microphone, gain control, clipping,
/// quantisation and codec.
public struct RecordingChain: Sendable, Codable, Hashable {
    /// An audio codec the recording went through (applied by the evaluation through ffmpeg).
    public enum Codec: Sendable, Codable, Hashable {
        /// AAC at `bitrate` bits per second (24000...128000), in an m4a file.
        case aac(bitrate: Int)
        /// Opus at `bitrate` bits per second (12000...64000), in an Ogg file.
        case opus(bitrate: Int)
        /// A telephone line: band 300-3400 Hz, 8 kHz, G.711 mu-law.
        case telephone
    }

    /// Level of the patient's sound relative to the nominal phone close to the device, -30...0 dB;
    /// random draws take -30...-6 dB (the study's phone lay on the table, not near the device).
    public var levelDB: Double
    /// Reverberation time RT60 of the room in seconds, 0.2...0.8.
    public var reverbTime: Double
    /// Direct-to-reverberant ratio of the patient's sound, -3...9 dB.
    public var directToReverberantDB: Double
    /// RMS of the room tone and the microphone's own noise in dB full scale, -80...-60.
    public var roomToneDBFS: Double
    /// Corner of the microphone's 4th-order low-cut in Hz, 50...300 (nominal 100).
    public var lowCut: Double
    /// Automatic gain control, if the phone applies it.
    public var gainControl: AutomaticGainControl?
    /// Clipping of the microphone amplifier this many dB above the RMS of a nominal exhalation as
    /// it reaches the phone, 0...10; nil: no clipping below full scale.
    public var clipHeadroomDB: Double?
    /// Quantisation to 8 or 16 bits; nil keeps 32-bit float.
    public var bitDepth: Int?
    /// The codec the recording went through, if any.
    public var codec: Codec?

    public init(
        levelDB: Double = 0, reverbTime: Double = 0.2, directToReverberantDB: Double = 9, roomToneDBFS: Double = -80,
        lowCut: Double = 100, gainControl: AutomaticGainControl? = nil, clipHeadroomDB: Double? = nil,
        bitDepth: Int? = nil, codec: Codec? = nil
    ) {
        self.levelDB = levelDB
        self.reverbTime = reverbTime
        self.directToReverberantDB = directToReverberantDB
        self.roomToneDBFS = roomToneDBFS
        self.lowCut = lowCut
        self.gainControl = gainControl
        self.clipHeadroomDB = clipHeadroomDB
        self.bitDepth = bitDepth
        self.codec = codec
    }

    static func random(using g: inout SeededGenerator) -> RecordingChain {
        RecordingChain(
            levelDB: g.uniform(-30...(-6)),
            reverbTime: g.uniform(0.2...0.8),
            directToReverberantDB: g.uniform(-3...9),
            roomToneDBFS: g.uniform(-80...(-60)),
            lowCut: g.logUniform(50...300),
            gainControl: g.chance(0.5) ? AutomaticGainControl.random(using: &g) : nil,
            clipHeadroomDB: g.chance(0.2) ? g.uniform(0...10) : nil,
            bitDepth: g.chance(0.3) ? (g.chance(0.5) ? 8 : 16) : nil,
            codec: g.chance(0.35) ? [Codec.aac(bitrate: 1000 * g.integer(24...128)), .opus(bitrate: 1000 * g.integer(12...64)), .telephone][g.integer(0...2)] : nil)
    }

    public func validate() throws(SimulationError) {
        try check("chain.levelDB", levelDB, -30...0, unit: " dB")
        try check("chain.reverbTime", reverbTime, 0.2...0.8, unit: " s")
        try check("chain.directToReverberantDB", directToReverberantDB, -3...9, unit: " dB")
        try check("chain.roomToneDBFS", roomToneDBFS, -80...(-60), unit: " dBFS")
        try check("chain.lowCut", lowCut, 50...300, unit: " Hz")
        try gainControl?.validate()
        if let clipHeadroomDB { try check("chain.clipHeadroomDB", clipHeadroomDB, 0...10, unit: " dB") }
        if let bitDepth, bitDepth != 8, bitDepth != 16 {
            throw .outOfRange(parameter: "chain.bitDepth", value: "\(bitDepth)", limit: "8 or 16")
        }
        switch codec {
        case let .aac(bitrate): try check("chain.codec.aac.bitrate", bitrate, 24000...128_000, unit: " bit/s")
        case let .opus(bitrate): try check("chain.codec.opus.bitrate", bitrate, 12000...64000, unit: " bit/s")
        case .telephone, nil: break
        }
    }

    var summary: String {
        var parts = ["\(Int(levelDB.rounded())) dB", "RT \(rounded(reverbTime, 1)) s"]
        if gainControl != nil { parts.append("AGC") }
        if clipHeadroomDB != nil { parts.append("clip") }
        if let bitDepth { parts.append("\(bitDepth)-bit") }
        switch codec {
        case let .aac(bitrate): parts.append("AAC \(bitrate / 1000)k")
        case let .opus(bitrate): parts.append("Opus \(bitrate / 1000)k")
        case .telephone: parts.append("phone line")
        case nil: break
        }
        return parts.joined(separator: " ")
    }
}

/// A phone's automatic gain control: a level follower with separate attack and release that
/// steers the gain towards a target level, within a largest boost.
public struct AutomaticGainControl: Sendable, Codable, Hashable {
    /// The RMS level it steers to, -30...-15 dBFS.
    public var targetDBFS: Double
    /// Time constant of the level follower while the level rises, 0.02...0.3 s.
    public var attack: Double
    /// Time constant while it falls, 0.5...3 s.
    public var release: Double
    /// Largest boost, 6...30 dB (it never cuts by more than 20 dB).
    public var maxGainDB: Double

    public init(targetDBFS: Double, attack: Double, release: Double, maxGainDB: Double) {
        self.targetDBFS = targetDBFS
        self.attack = attack
        self.release = release
        self.maxGainDB = maxGainDB
    }

    static func random(using g: inout SeededGenerator) -> AutomaticGainControl {
        AutomaticGainControl(
            targetDBFS: g.uniform(-30...(-15)), attack: g.logUniform(0.02...0.3), release: g.logUniform(0.5...3),
            maxGainDB: g.uniform(6...30))
    }

    public func validate() throws(SimulationError) {
        try check("chain.gainControl.targetDBFS", targetDBFS, -30...(-15), unit: " dBFS")
        try check("chain.gainControl.attack", attack, 0.02...0.3, unit: " s")
        try check("chain.gainControl.release", release, 0.5...3, unit: " s")
        try check("chain.gainControl.maxGainDB", maxGainDB, 6...30, unit: " dB")
    }
}

/// Real recordings mixed under the session, named relative to their library's directory.
public struct RecordedInterference: Sendable, Codable, Hashable {
    /// One recording playing throughout (looped from `start`), or coughs placed between breaths,
    /// one file per gap.
    public var files: [String]
    /// Whether the files play as bursts between breaths rather than continuously.
    public var bursts: Bool
    /// Level relative to a nominal exhalation at the microphone: the long-term RMS of a continuous
    /// recording, -30...-5 dB, or the RMS of a burst's loud part, -20...0 dB.
    public var levelDB: Double
    /// Where a continuous recording starts, as a share of its length, 0..<1.
    public var start: Double

    public init(files: [String], bursts: Bool, levelDB: Double, start: Double = 0) {
        self.files = files
        self.bursts = bursts
        self.levelDB = levelDB
        self.start = start
    }

    static func random(from names: [String], using g: inout SeededGenerator) -> RecordedInterference {
        let coughs = names.filter { $0.hasPrefix("coughs/") }
        let others = names.filter { !$0.hasPrefix("coughs/") }
        if !coughs.isEmpty, others.isEmpty || g.chance(0.4) {
            let files = (0..<g.integer(2...5)).map { _ in coughs[g.integer(0...(coughs.count - 1))] }
            return RecordedInterference(files: files, bursts: true, levelDB: g.uniform(-20...0))
        }
        return RecordedInterference(
            files: [others[g.integer(0...(others.count - 1))]], bursts: false, levelDB: g.uniform(-30...(-5)),
            start: g.uniform(0...0.999))
    }

    public func validate() throws(SimulationError) {
        if files.isEmpty || (!bursts && files.count != 1) {
            throw .outOfRange(parameter: "recording.files", value: "\(files.count) files", limit: bursts ? "at least 1" : "exactly 1")
        }
        try check("recording.levelDB", levelDB, bursts ? -20...0 : -30...(-5), unit: " dB")
        try check("recording.start", start, 0...0.999)
    }

    var summary: String {
        let name = bursts ? "\(files.count) real coughs" : (files[0] as NSString).deletingPathExtension
        return "\(name) \(Int(levelDB.rounded())) dB"
    }
}

func check<T: Comparable>(_ name: String, _ value: T, _ limit: ClosedRange<T>, unit: String = "") throws(SimulationError) {
    guard limit.contains(value) else {
        throw .outOfRange(parameter: name, value: "\(value)", limit: "\(limit)\(unit)")
    }
}

func check(_ name: String, _ value: ClosedRange<Double>, within limit: ClosedRange<Double>, unit: String = "") throws(SimulationError) {
    guard limit.contains(value.lowerBound), limit.contains(value.upperBound) else {
        throw .outOfRange(parameter: name, value: "\(value)", limit: "within \(limit)\(unit)")
    }
}

func rounded(_ value: Double, _ digits: Int) -> String {
    String(format: "%.\(digits)f", value)
}
