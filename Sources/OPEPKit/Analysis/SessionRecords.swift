/// Share of time spent below, in and above the target range.
public struct ZoneShares: Sendable, Hashable {
    public var below: Double
    public var within: Double
    public var above: Double

}

/// One exhalation through the device.
public struct Breath: Sendable, Hashable {
    /// Number within the session, from 1.
    public var index: Int
    /// Number of the set it belongs to, from 1.
    public var set: Int
    /// Start and end, in seconds from the start of the recording.
    public var start: Double
    public var end: Double
    /// `end - start`, in seconds.
    public var duration: Double
    /// Pressure statistics over the time a flutter was heard, in cmH2O.
    public var meanPressure: Double?
    public var minPressure: Double?
    public var maxPressure: Double?
    /// Mean flutter pitch in Hz.
    public var meanPitch: Double?
    /// Share of the flutter time in the target range.
    public var shareInTarget: Double?
    /// Share of the breath's time with a flutter pitch.
    public var flutterShare: Double
    /// The breath's time without a pitch and the signal check's reasons for it (nil in
    /// documents written before the check).
    public var unmeasured: UnmeasuredTime?
    /// How its sound reached the microphone and the signal check's verdict on it (nil in
    /// documents written before the placement check).
    public var signal: SignalFigures?

}

/// How a sound reached the microphone, averaged over it, and the signal check's verdict: what
/// the placement check shows the patient after one breath, and the physiotherapist beside each
/// breath.
public struct SignalFigures: Sendable, Hashable {
    /// The sound's level over the noise before it: the room's (the median level between
    /// exhalations) with the recording's rounding (``RoundingMeter``; documents made before
    /// 2026-11-27 read the room's alone), to 0.1 dB
    /// (so that every platform's logarithm writes the same document; nil before the room was heard).
    public var snrDB: Double?
    /// The tracker's modulation depth of the sound (a device near the phone gives 0.4-1).
    public var modulation: Double
    /// Share of the samples held at their peak.
    public var clippedShare: Double
    /// The upper frequency the sound reaches, to the nearest Hz (``BandMeter``; nil when unknown):
    /// whole hertz, so that every platform's arc sine writes the same document.
    public var upperFrequencyHz: Double?
    /// Why the sound was not measured well; nil (left out of the JSON) when its flutter was heard clearly.
    public var problem: SignalProblem?

    public init(snrDB: Double?, modulation: Double, clippedShare: Double, upperFrequencyHz: Double?, problem: SignalProblem?) {
        self.snrDB = snrDB
        self.modulation = modulation
        self.clippedShare = clippedShare
        self.upperFrequencyHz = upperFrequencyHz
        self.problem = problem
    }
}

/// Time of exhalation without a measured flutter, and the reasons the ``SignalCheck`` gave for
/// it, in seconds; what has no reason was a gap too short for the check to judge, or lay outside
/// the sound it heard.
public struct UnmeasuredTime: Sendable, Hashable {
    public var total: Double
    public var clipped: Double
    public var tooNoisy: Double
    public var tooQuiet: Double
    public var tooFar: Double
    public var bandLimited: Double
    public var noFlutter: Double
    public var gainControl: Double

    public init(
        total: Double = 0, clipped: Double = 0, tooNoisy: Double = 0, tooQuiet: Double = 0, tooFar: Double = 0,
        bandLimited: Double = 0, noFlutter: Double = 0, gainControl: Double = 0
    ) {
        self.total = total
        self.clipped = clipped
        self.tooNoisy = tooNoisy
        self.tooQuiet = tooQuiet
        self.tooFar = tooFar
        self.bandLimited = bandLimited
        self.noFlutter = noFlutter
        self.gainControl = gainControl
    }

    /// The time given `problem` as its reason.
    public func time(_ problem: SignalProblem) -> Double {
        switch problem {
        case .clipped: clipped
        case .tooNoisy: tooNoisy
        case .tooQuiet: tooQuiet
        case .tooFar: tooFar
        case .bandLimited: bandLimited
        case .noFlutter: noFlutter
        case .gainControl: gainControl
        }
    }

    /// The time given any reason.
    public var named: Double { SignalProblem.allCases.reduce(0) { $0 + time($1) } }

    /// Adds `seconds` without a pitch, for which the check gave `reason` (nil: none).
    public mutating func add(_ seconds: Double, reason: SignalProblem?) {
        total += seconds
        if let reason { add(seconds, to: reason) }
    }

    /// Adds another's times.
    public mutating func add(_ other: UnmeasuredTime) {
        total += other.total
        for problem in SignalProblem.allCases { add(other.time(problem), to: problem) }
    }

    /// Every time multiplied by `factor` (frames counted as 1 each, to seconds).
    public func scaled(by factor: Double) -> UnmeasuredTime {
        UnmeasuredTime(
            total: total * factor, clipped: clipped * factor, tooNoisy: tooNoisy * factor, tooQuiet: tooQuiet * factor,
            tooFar: tooFar * factor, bandLimited: bandLimited * factor, noFlutter: noFlutter * factor,
            gainControl: gainControl * factor)
    }

    private mutating func add(_ seconds: Double, to problem: SignalProblem) {
        switch problem {
        case .clipped: clipped += seconds
        case .tooNoisy: tooNoisy += seconds
        case .tooQuiet: tooQuiet += seconds
        case .tooFar: tooFar += seconds
        case .bandLimited: bandLimited += seconds
        case .noFlutter: noFlutter += seconds
        case .gainControl: gainControl += seconds
        }
    }

    /// The reasons given, the longest first (ties in the order of ``SignalProblem``).
    public var reasons: [SignalProblem] {
        var given: [SignalProblem] = []
        for problem in SignalProblem.allCases where time(problem) > 0 { given.append(problem) }
        for i in given.indices.dropFirst() {
            var j = i
            while j > 0, time(given[j]) > time(given[j - 1]) {
                given.swapAt(j, j - 1)
                j -= 1
            }
        }
        return given
    }
}

/// A set: breaths in a row, closed by huff coughs or a long pause.
public struct TherapySet: Sendable, Hashable {
    /// Number within the session, from 1.
    public var index: Int
    /// Start of its first breath and end of its last, in seconds.
    public var start: Double
    public var end: Double
    public var breathCount: Int
    /// Huff coughs heard after its last breath.
    public var huffCoughs: Int
    /// Mean pressure over its flutter time, in cmH2O.
    public var meanPressure: Double?
    /// Share of its flutter time in the target range.
    public var shareInTarget: Double?

}

/// The whole session at a glance.
public struct SessionSummary: Sendable, Hashable {
    /// Length of the audio analysed, in seconds.
    public var duration: Double
    public var breathCount: Int
    public var setCount: Int
    public var huffCoughCount: Int
    /// Total time exhaling through the device, in seconds.
    public var exhalationTime: Double
    /// Mean exhalation length, in seconds.
    public var meanBreathDuration: Double?
    /// Mean pressure over all flutter time, in cmH2O.
    public var meanPressure: Double?
    /// Mean flutter pitch, in Hz.
    public var meanPitch: Double?
    /// Share of the flutter time below, in and above the target.
    public var zoneShares: ZoneShares?
    /// Mean exhalation length over mean inhalation length, when enough inhalations were heard.
    public var exhalationInhalationRatio: Double?
    /// Inhalations heard (quiet breathing is often inaudible).
    public var inhalationsHeard: Int
    /// Share of the exhalation time with a flutter pitch (nil without breaths, and in documents
    /// written before it was recorded).
    public var flutterShare: Double?
    /// The exhalation time without a pitch and the signal check's reasons for it (nil in
    /// documents written before the check).
    public var unmeasured: UnmeasuredTime?

}

/// Everything the analysis found: summary, breaths and sets.
public struct SessionReport: Sendable, Hashable {
    public var summary: SessionSummary
    public var breaths: [Breath]
    public var sets: [TherapySet]
}

// JSON lives in the outer modules; Embedded Swift has no Codable.
#if !hasFeature(Embedded)
extension ZoneShares: Codable {
    enum CodingKeys: String, CodingKey { case below, within = "in", above }
}
extension Breath: Codable {
    enum CodingKeys: String, CodingKey {
        case index, set, start = "start_s", end = "end_s", duration = "duration_s"
        case meanPressure = "mean_pressure_cmh2o", minPressure = "min_pressure_cmh2o", maxPressure = "max_pressure_cmh2o"
        case meanPitch = "mean_pitch_hz", shareInTarget = "share_in_target", flutterShare = "flutter_share"
        case unmeasured, signal
    }
}
extension SignalFigures: Codable {
    enum CodingKeys: String, CodingKey {
        case snrDB = "snr_db", modulation, clippedShare = "clipped_share", upperFrequencyHz = "upper_frequency_hz", problem
    }

    /// Reads tolerantly: a missing figure is 0 (the ratio unknown), a problem this release does
    /// not know is read as none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        snrDB = try c.decodeIfPresent(Double.self, forKey: .snrDB)
        modulation = try c.decodeIfPresent(Double.self, forKey: .modulation) ?? 0
        clippedShare = try c.decodeIfPresent(Double.self, forKey: .clippedShare) ?? 0
        upperFrequencyHz = try c.decodeIfPresent(Double.self, forKey: .upperFrequencyHz)
        problem = (try c.decodeIfPresent(String.self, forKey: .problem)).flatMap(SignalProblem.init(rawValue:))
    }
}
extension UnmeasuredTime: Codable {
    enum CodingKeys: String, CodingKey {
        case total = "total_s", clipped = "clipped_s", tooNoisy = "too_noisy_s", tooQuiet = "too_quiet_s"
        case tooFar = "too_far_s", bandLimited = "band_limited_s", noFlutter = "no_flutter_s"
        case gainControl = "gain_control_s"
    }

    /// Writes the total and the reasons given (a reason not given is left out).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(total, forKey: .total)
        for (value, key) in [(clipped, CodingKeys.clipped), (tooNoisy, .tooNoisy), (tooQuiet, .tooQuiet), (tooFar, .tooFar),
                             (bandLimited, .bandLimited), (noFlutter, .noFlutter), (gainControl, .gainControl)] where value > 0 {
            try c.encode(value, forKey: key)
        }
    }

    /// Reads tolerantly: what is missing is 0.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        try c.update(&total, from: .total)
        try c.update(&clipped, from: .clipped)
        try c.update(&tooNoisy, from: .tooNoisy)
        try c.update(&tooQuiet, from: .tooQuiet)
        try c.update(&tooFar, from: .tooFar)
        try c.update(&bandLimited, from: .bandLimited)
        try c.update(&noFlutter, from: .noFlutter)
        try c.update(&gainControl, from: .gainControl)
    }
}
extension TherapySet: Codable {
    enum CodingKeys: String, CodingKey {
        case index, start = "start_s", end = "end_s", breathCount = "breaths", huffCoughs = "huff_coughs"
        case meanPressure = "mean_pressure_cmh2o", shareInTarget = "share_in_target"
    }
}
extension SessionSummary: Codable {
    enum CodingKeys: String, CodingKey {
        case duration = "duration_s", breathCount = "breaths", setCount = "sets", huffCoughCount = "huff_coughs"
        case exhalationTime = "exhalation_time_s", meanBreathDuration = "mean_breath_duration_s"
        case meanPressure = "mean_pressure_cmh2o", meanPitch = "mean_pitch_hz", zoneShares = "time_share"
        case exhalationInhalationRatio = "exhalation_inhalation_ratio", inhalationsHeard = "inhalations_heard"
        case flutterShare = "flutter_share", unmeasured
    }

    /// Decodes a stored summary tolerantly: a count missing from it (stored before it existed)
    /// is 0, a measure missing is unknown, and keys this release does not know are ignored.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        duration = try c.decodeIfPresent(Double.self, forKey: .duration) ?? 0
        breathCount = try c.decodeIfPresent(Int.self, forKey: .breathCount) ?? 0
        setCount = try c.decodeIfPresent(Int.self, forKey: .setCount) ?? 0
        huffCoughCount = try c.decodeIfPresent(Int.self, forKey: .huffCoughCount) ?? 0
        exhalationTime = try c.decodeIfPresent(Double.self, forKey: .exhalationTime) ?? 0
        meanBreathDuration = try c.decodeIfPresent(Double.self, forKey: .meanBreathDuration)
        meanPressure = try c.decodeIfPresent(Double.self, forKey: .meanPressure)
        meanPitch = try c.decodeIfPresent(Double.self, forKey: .meanPitch)
        zoneShares = try c.decodeIfPresent(ZoneShares.self, forKey: .zoneShares)
        exhalationInhalationRatio = try c.decodeIfPresent(Double.self, forKey: .exhalationInhalationRatio)
        inhalationsHeard = try c.decodeIfPresent(Int.self, forKey: .inhalationsHeard) ?? 0
        flutterShare = try c.decodeIfPresent(Double.self, forKey: .flutterShare)
        unmeasured = try c.decodeIfPresent(UnmeasuredTime.self, forKey: .unmeasured)
    }
}
extension SessionReport: Codable {}
#endif
