/// One moment of a session, as the analysis reports it (100 per second by default).
public struct SessionFrame: Sendable, Hashable {
    /// Centre of the audio the frame describes, in seconds from the start of the recording.
    public var time: Double
    /// Flutter pitch in Hz, only during an exhalation through the device.
    public var pitch: Double?
    /// Expiratory pressure in cmH2O predicted from the pitch by the device's line.
    public var pressure: Double?
    /// Normalised autocorrelation of the flutter, 0-1.
    public var confidence: Double
    /// Whether the patient is exhaling through the device.
    public var exhaling: Bool
    /// Where the pressure lies against the target, when there is a pressure.
    public var zone: PressureZone?
    /// Level of the high-passed sound in dB relative to full scale, at least ``lowestLevelDB``.
    public var levelDB: Double
    /// The lowest level a frame has (silence reads it), in dB relative to full scale.
    public static let lowestLevelDB = -140.0
    /// Why the sound going on has no flutter pitch here (see ``SignalCheck``).
    public var signal: SignalProblem?
    /// The warning for the patient standing at this frame: the flutter has not been measured
    /// well for a while, and why (see ``SignalCheck``).
    public var warning: SignalProblem?
    /// The tracker's modulation depth of the sound here, and the share of its samples held at
    /// their peak (``ClipMeter``): what a breath's ``SignalFigures`` average. Not stored.
    public var modulation: Double = 0
    public var clippedShare: Double = 0
    /// The upper frequency the sound reaches here, in Hz (``BandMeter``), when known. Not stored.
    public var upperFrequencyHz: Double? = nil

    public init(
        time: Double, pitch: Double?, pressure: Double?, confidence: Double, exhaling: Bool, zone: PressureZone?,
        levelDB: Double, signal: SignalProblem? = nil, warning: SignalProblem? = nil, modulation: Double = 0,
        clippedShare: Double = 0, upperFrequencyHz: Double? = nil
    ) {
        self.time = time
        self.pitch = pitch
        self.pressure = pressure
        self.confidence = confidence
        self.exhaling = exhaling
        self.zone = zone
        self.levelDB = levelDB
        self.signal = signal
        self.warning = warning
        self.modulation = modulation
        self.clippedShare = clippedShare
        self.upperFrequencyHz = upperFrequencyHz
    }
}

/// Something that happened in a session.
public struct SessionEvent: Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable {
        case breathStarted = "breath_started", breathEnded = "breath_ended"
        case huffCough = "huff_cough", setEnded = "set_ended"
    }

    public var kind: Kind
    /// When it started, in seconds from the start of the recording.
    public var time: Double
    /// How long it lasted, in seconds (breaths, huff coughs and sets).
    public var duration: Double?
    /// The breath's number, from 1 (breath events).
    public var breath: Int?
    /// The set's number, from 1.
    public var set: Int?
    /// The breath's number within its set, from 1 (breath events): the one count of breaths in a
    /// set, which the page, its worker and the terminal display.
    public var breathInSet: Int?
}

/// What the analysis hands out while it runs.
public enum SessionOutput: Sendable, Hashable {
    /// A frame as soon as its audio has been analysed, for a live display: the flutter heard now
    /// and whether an exhalation is under way so far. Later decisions may still change it.
    case live(SessionFrame)
    /// A final frame, handed out once no later decision can change it.
    case frame(SessionFrame)
    /// Something that happened, handed out in order with the final frames.
    case event(SessionEvent)
}

// JSON lives in the outer modules; Embedded Swift has no Codable.
#if !hasFeature(Embedded)
extension SessionFrame: Codable {
    enum CodingKeys: String, CodingKey {
        case time = "time_s", pitch = "pitch_hz", pressure = "pressure_cmh2o", confidence, exhaling, zone
        case levelDB = "level_db", signal, warning
    }
}
extension SessionEvent: Codable {
    enum CodingKeys: String, CodingKey {
        case kind = "type", time = "time_s", duration = "duration_s", breath, set, breathInSet = "breath_in_set"
    }
}
extension SessionEvent.Kind: Codable {}
#endif
