/// Why a sound's flutter is not being measured (issue 23: never silently blind).
public enum SignalProblem: String, Sendable, Hashable, CaseIterable {
    /// The recording is cut flat at its limit: the microphone's gain is too high for the breath.
    case clipped
    /// The sound is barely above the room's noise, and the room is loud: interference (a TV,
    /// speech, a kitchen) masks the breath.
    case tooNoisy = "too_noisy"
    /// The sound is barely above the room's noise, and the room is quiet: the breath reaches the
    /// microphone too faintly.
    case tooQuiet = "too_quiet"
    /// The sound is clear but its flutter too shallow to follow: the phone is too far from the
    /// device (the room's echo fills the gaps between the rocker's pulses).
    case tooFar = "too_far"
    /// The recording's band is too narrow (telephone rate).
    case bandLimited = "band_limited"
    /// The sound is clear and well modulated, yet no flutter in the device's band: a breath or
    /// a sound not through the device.
    case noFlutter = "no_flutter"
    /// The phone's automatic gain control pumps the level: it lifts the room between breaths and
    /// flattens the flutter within them.
    case gainControl = "gain_control"

    /// The reason in a few words, for reports ("too noisy").
    public var words: String {
        switch self {
        case .clipped: "clipped"
        case .tooNoisy: "too noisy"
        case .tooQuiet: "too quiet"
        case .tooFar: "too far"
        case .bandLimited: "band-limited"
        case .noFlutter: "no flutter"
        case .gainControl: "gain control"
        }
    }

    /// What the patient should do, in one short sentence (static, so that the page's engine can
    /// hand it out as C text).
    public var advice: StaticString {
        switch self {
        case .clipped: "The sound is distorted: lower the microphone gain or move the phone a little away."
        case .tooNoisy: "Too much noise around: turn the TV or music down, or move somewhere quieter."
        case .tooQuiet: "The breath is too faint: move the phone to 20-50 cm from the device."
        case .tooFar: "The flutter is too weak: move the phone to 20-50 cm from the device."
        case .bandLimited: "This recording's sound is too narrow: record at 16 kHz or more."
        case .noFlutter: "No flutter heard: breathe out through the device."
        case .gainControl: "The phone keeps changing its volume: turn off automatic gain, or use a voice-recorder app."
        }
    }
}

/// Names the reason whenever a sound goes on without a measured flutter, with the measure
/// behind it, so that the patient is never left guessing (issue 23).
///
/// It reads what the analysis already has, frame by frame: the sound's level and the room's
/// (``ExhalationDetector/backgroundDB``: the median level between exhalations, where speech or
/// music typically lies, not the floor of their quiet moments), whether a sound is going on and
/// whether it has a pitch, the tracker's modulation depth, the share of clipped samples
/// (``ClipMeter``) and the upper frequency the sound reaches (``BandMeter``). While a sound
/// goes on, these are averaged with a memory of `memoryTime` (default 1 s), restarting with each
/// sound (a plain mean over its first `memoryTime`). Every frame of a sound without a pitch, once
/// the sound has gone on for `patience` (below) or after its first pitch, gets a *reason*, the
/// first that applies:
/// 1. ``SignalProblem/clipped`` when at least `clippedShareLimit` (default 2 %) of the samples
///    are held at their peak (a breath clipped 6 dB above its RMS holds about 5 % there);
/// 2. ``SignalProblem/gainControl`` when the session's exhalations overshoot their own level as
///    they start by `gainControlOvershootDB` or more (default 3 dB; ``OnsetOvershootMeter``: a
///    gain control turned up for the room between breaths; breaths heard as they are read
///    under 2 dB in nine sessions of ten), or the room rises across the pauses between them by
///    `gainControlRoomRiseDB` or more (default 2 dB; ``RoomRiseMeter``: the gain given back
///    after each breath; a room heard as it is keeps its level). Gain control lifts the room and
///    flattens the flutter, so it would otherwise be named noise or distance, with the wrong
///    advice. It is read from the session's levels, which a narrow band leaves as they are, so
///    it comes before the band (on the first 400 random tuning sessions it is named in 9 % of the
///    narrow-band sessions without gain control and 5 % of the wide ones, in 68 % and 77 % of
///    those with it);
/// 3. ``SignalProblem/bandLimited`` when the sound reaches no higher than `narrowBandHz`
///    (default 3.2 kHz: a telephone line reads 2.6-3.0 kHz, a phone's own recording at 16 kHz
///    about 4.4 kHz, a dark breath at 11.025 kHz 2.6-3.9 kHz);
/// 4. ``SignalProblem/tooFar`` when the modulation depth, undiluted by the room's noise, is under
///    `shallowModulation` (default 0.2; the tracker needs 0.1, a device near the phone modulates
///    its sound 0.4-1), unless the tracker's period evidence (its strongest correlation averaged
///    per lag over 0.15 s, ``FlutterPitchTracker/Frame/periodEvidence``) stays under
///    `noFlutterEvidence` (default 0.2): then no period persists at all, a breath without the
///    device rather than one heard from too far, and the reason is ``SignalProblem/noFlutter``
///    (on the first 200 random tuning sessions, per frame, a median of 0.20 in exhalations without
///    the device and 0.40 in the device's flutter without a pitch). Steady noise `N` under a
///    breath `S` dilutes the depth the tracker reads by `S / (S + N)`, so the depth is taken
///    times `1 + N / S` (from the ratio in 5), and when
///    even that is shallow the phone is too far whatever the noise: the noise cannot explain it
///    (on the first 400 random tuning sessions, frames re-decided from their averages: a drawn
///    cause given in 4 more of the 160 cases under 95 % that drew one, a costly one in 6 more of
///    109, than with the noise judged first);
/// 5. a signal-to-noise ratio, breath over the room, under `noisyMarginDB` (default 18 dB: on the
///    random tuning corpus, sessions whose continuous interference lies within 15 dB of a nominal
///    exhalation read 8-20 dB there, clear ones 18-30 dB): ``SignalProblem/tooNoisy`` when the
///    room is above `quietRoomDBFS` (default -55 dBFS, above a quiet room and a phone
///    microphone's own noise), ``SignalProblem/tooQuiet`` when below. The noise is the room's
///    with the recording's own rounding (``RoundingMeter``: a white noise of the quantisation
///    step's power through the tracker's front end), which sounds only while a sound goes on and
///    so is never in the room's level: a breath a few 8-bit steps loud over a silent room is
///    masked by it. When the rounding is the louder, the breath is too quiet whatever the room;
/// 6. otherwise ``SignalProblem/noFlutter``.
///
/// A *warning* for the patient stands once a sound has gone on for `patience` (default 1.2 s: a
/// breath's sound starts up to 0.6 s before the rocker opens, and the tracker reports its
/// flutter 0.3-0.5 s later) without a pitch, or once its flutter has been followed that long and
/// a pitch was reported in under `warningShare` (default 30 %) of its recent frames (with the
/// same memory: 1.2 s after a flutter is lost entirely). A clipped sound whose flutter is
/// measured is not warned about: clipping often costs nothing (4 clipped sessions of the first
/// 120 random tuning ones met every target; a simulated session turned up 18-30 dB flat at full
/// scale is measured in 92-95 % of its exhalations, its pressures right), and a warning that
/// changes nothing is one the patient learns to ignore (the placement check, which the patient
/// asks for, still names the clipping, ``verdict(on:roomDB:flutterShare:unmeasured:configuration:)``). A
/// recording clipped between sounds in every frame for `patience` is warned about as clipped: its
/// room is so loud that no breath stands out from it as a sound, and the check would otherwise say
/// nothing (a simulated session turned up 34 dB reads the room at -16 dBFS, no exhalation).
/// Likewise a microphone that hears nothing at all, its level under `silentDBFS` (default
/// -110 dBFS, below any microphone's own noise; a muted input, or a breath too faint for 8-bit
/// samples, reads digital zeros) for `patience`, is warned about as ``SignalProblem/tooQuiet``,
/// with that level as its measure. Both give the frames their finding as the reason. It
/// clears once the flutter is measured again (in `measuredShare`, default 60 %, of the recent
/// frames); when the sound ends, it is held `holdTime` (default
/// 1 s), so that a sentence on a screen does not flicker between sounds. No allocation; one frame
/// at a time.
public struct SignalCheck {
    /// The check's parameters in real units.
    public struct Configuration: Sendable, Hashable {
        /// How long a sound goes on without a pitch before it gets a verdict, in seconds (default 1.2).
        public var patience: Double = 1.2
        /// Memory of the measures averaged while a sound goes on, in seconds (default 1).
        public var memoryTime: Double = 1
        /// How long a verdict outlasts the sound it was given for, in seconds (default 1).
        public var holdTime: Double = 1
        /// Share of a sound's frames with a pitch, since its first, under which its flutter is not
        /// measured well (default 0.6): a standing warning clears once the share is back above it.
        public var measuredShare: Double = 0.6
        /// Share of a sound's recent frames with a pitch, since its first, under which a warning is
        /// raised once its flutter has been followed for the patience (default 0.3: a flutter lost
        /// entirely falls under it after 1.2 s, the patience of a sound never measured). At 0.6, a
        /// flutter lost for half a second was warned about: on the first 120 random tuning
        /// sessions 3 of the 46 that met every target raised a warning during a breath, 0 at 0.3.
        public var warningShare: Double = 0.3
        /// Share of samples held at their peak that is clipping (default 0.02).
        public var clippedShareLimit: Double = 0.02
        /// Breath-over-room ratio under which the sound is masked or too faint, in dB (default 18).
        public var noisyMarginDB: Double = 18
        /// A room above this is a noisy one, below it a quiet one, in dB full scale (default -55).
        public var quietRoomDBFS: Double = -55
        /// A level under this between sounds is a microphone that hears nothing, in dB full scale
        /// (default -110).
        public var silentDBFS: Double = -110
        /// Modulation depth under which the flutter is too shallow to follow (default 0.2).
        public var shallowModulation: Double = 0.2
        /// An upper frequency under this is too narrow a band, in Hz (default 3200).
        public var narrowBandHz: Double = 3200
        /// Exhalations' onset overshoot from which the phone's gain control is named, in dB
        /// (default 3).
        public var gainControlOvershootDB: Double = 3
        /// The room's rise across the pauses between exhalations from which the phone's gain
        /// control is named, in dB (default 2).
        public var gainControlRoomRiseDB: Double = 2
        /// Period evidence under which a shallow sound is no flutter rather than too far (default 0.2).
        public var noFlutterEvidence: Double = 0.2

        public init() {}

        /// Throws if any value is out of its range, naming the parameter, the value and the limit.
        public func validate() throws(EngineConfigurationError) {
            try require(patience >= 0 && patience <= 5, "signal.patience", patience, "between 0 and 5 s")
            try require(memoryTime >= 0.05 && memoryTime <= 10, "signal.memoryTime", memoryTime, "between 0.05 and 10 s")
            try require(holdTime >= 0 && holdTime <= 5, "signal.holdTime", holdTime, "between 0 and 5 s")
            try require(measuredShare >= 0 && measuredShare <= 1, "signal.measuredShare", measuredShare, "between 0 and 1")
            try require(warningShare >= 0 && warningShare <= 1, "signal.warningShare", warningShare, "between 0 and 1")
            try require(clippedShareLimit > 0 && clippedShareLimit <= 1, "signal.clippedShareLimit", clippedShareLimit, "in (0, 1]")
            try require(noisyMarginDB >= 0 && noisyMarginDB <= 60, "signal.noisyMarginDB", noisyMarginDB, "between 0 and 60 dB")
            try require(quietRoomDBFS >= -140 && quietRoomDBFS <= 0, "signal.quietRoomDBFS", quietRoomDBFS, "between -140 and 0 dBFS")
            try require(silentDBFS >= -140 && silentDBFS <= quietRoomDBFS, "signal.silentDBFS", silentDBFS, "between -140 dBFS and quietRoomDBFS (\(quietRoomDBFS) dBFS)")
            try require(shallowModulation >= 0 && shallowModulation <= 2, "signal.shallowModulation", shallowModulation, "between 0 and 2")
            try require(narrowBandHz >= 0 && narrowBandHz <= 192_000, "signal.narrowBandHz", narrowBandHz, "between 0 and 192000 Hz")
            try require(
                gainControlOvershootDB >= 0 && gainControlOvershootDB <= 60, "signal.gainControlOvershootDB",
                gainControlOvershootDB, "between 0 and 60 dB")
            try require(noFlutterEvidence >= 0 && noFlutterEvidence <= 1, "signal.noFlutterEvidence", noFlutterEvidence, "between 0 and 1")
            try require(
                gainControlRoomRiseDB >= 0 && gainControlRoomRiseDB <= Self.riseNoRoomMakes, "signal.gainControlRoomRiseDB",
                gainControlRoomRiseDB, "between 0 and 120 dB")
        }

        /// More than the span between the quietest level counted as heard (-110 dBFS) and full
        /// scale, so a rise no room makes: the setting of documents analysed before the room's
        /// rise was read.
        static let riseNoRoomMakes = 120.0
    }

    /// A verdict with the measure behind it.
    public struct Finding: Sendable, Hashable {
        public var problem: SignalProblem
        /// The measure that decided it, in its unit: the clipped share (0-1), the breath's ratio
        /// over the room (dB; for a microphone that hears nothing its level, dBFS), the modulation
        /// depth (undiluted by the room's noise), the upper frequency (Hz), or for gain control the
        /// onset overshoot or, when that is under its limit, the room's rise across pauses (dB).
        public var measure: Double
    }

    /// What the check says about one frame.
    public struct Verdict: Sendable, Hashable {
        /// Why the frame's sound has no pitch: the first cause that applies to the sound as it is
        /// (nil when the frame has a pitch or no sound is going on, unless the input is clipped or
        /// silent throughout).
        public var reason: Finding?
        /// The warning for the patient: the sound's flutter has not been measured well for a
        /// while, and why.
        public var warning: Finding?
    }

    /// What one frame of the analysis saw.
    public struct Observation: Sendable, Hashable {
        /// The sound's level, in dB full scale.
        public var levelDB: Double
        /// The room's level the sound is compared with (the median between exhalations), in dB full scale, when known.
        public var roomDB: Double?
        /// Whether a sound is going on.
        public var sounding: Bool
        /// Whether the frame has a flutter pitch.
        public var pitched: Bool
        /// The tracker's modulation depth.
        public var modulation: Double
        /// Share of the frame's samples clipped.
        public var clippedShare: Double
        /// The upper frequency its sound reaches, in Hz, when known.
        public var upperFrequencyHz: Double? = nil
        /// How far the session's exhalations overshoot their level as they start, in dB, when
        /// known (``OnsetOvershootMeter``).
        public var onsetOvershootDB: Double? = nil
        /// The level the recording's rounding adds to a sound, in dB full scale as the sound's
        /// level is measured, when known (``RoundingMeter``).
        public var roundingDB: Double? = nil
        /// How far the room rises across the pauses between the session's exhalations, in dB,
        /// when known (``RoomRiseMeter``).
        public var roomRiseDB: Double? = nil
        /// The tracker's period evidence, when known (``FlutterPitchTracker/Frame/periodEvidence``).
        public var periodEvidence: Double? = nil
    }

    public let configuration: Configuration
    /// `noisyMarginDB` as a power ratio, for the frames' decisions.
    private let noisyMarginRatio: Double
    private let mix: Double
    private let patienceFrames: Int
    private let holdFrames: Int
    private var wasSounding = false
    private var soundFrames = 0
    /// Frames since the sound's first pitch (0 before it), and the share of them with a pitch
    /// (averaged with the check's memory).
    private var flutterFrames = 0
    private var measured = 1.0
    private var sinceCause = 0
    private var means = (level: 0.0, room: 0.0, rounding: 0.0, modulation: 0.0, clipped: 0.0, band: 0.0, evidence: 0.0)
    private var bandFrames = 0
    private var evidenceFrames = 0
    private var roundingFrames = 0
    /// Frames in a row without a sound that were clipped, and that were silent.
    private var clippedQuietFrames = 0
    private var silentFrames = 0
    /// The warning standing after the last frame.
    public private(set) var warning: Finding?
    /// The power of the last noise worked out (room and rounding together) and the averages it
    /// came from: the room's level holds still through a sound.
    private var lastNoise: (roomDB: Double, roundingDB: Double?, power: Double) = (.nan, nil, .nan)

    /// A check for frames `frameInterval` seconds apart.
    public init(configuration: Configuration, frameInterval: Double) throws(EngineConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        noisyMarginRatio = Self.powerRatio(configuration.noisyMarginDB)
        mix = min(1, frameInterval / configuration.memoryTime)
        patienceFrames = Int((configuration.patience / frameInterval).rounded())
        holdFrames = Int((configuration.holdTime / frameInterval).rounded())
    }

    public mutating func reset() {
        wasSounding = false
        soundFrames = 0
        flutterFrames = 0
        measured = 1
        sinceCause = 0
        means = (0, 0, 0, 0, 0, 0, 0)
        bandFrames = 0
        evidenceFrames = 0
        roundingFrames = 0
        clippedQuietFrames = 0
        silentFrames = 0
        warning = nil
    }

    /// Takes one frame's observation; returns the reason its sound has no pitch, if it has
    /// none, and the warning for the patient, if one stands.
    @discardableResult
    public mutating func process(_ observation: Observation) -> Verdict {
        guard observation.sounding else {
            wasSounding = false
            clippedQuietFrames = observation.clippedShare >= configuration.clippedShareLimit ? clippedQuietFrames + 1 : 0
            silentFrames = observation.levelDB < configuration.silentDBFS ? silentFrames + 1 : 0
            var finding: Finding?
            if clippedQuietFrames > patienceFrames {
                finding = Finding(problem: .clipped, measure: observation.clippedShare)
            } else if silentFrames > patienceFrames {
                finding = Finding(problem: .tooQuiet, measure: observation.levelDB)
            }
            if let finding {
                warning = finding
                sinceCause = 0
            } else if warning != nil {
                sinceCause += 1
                if sinceCause > holdFrames { warning = nil }
            }
            return Verdict(reason: finding, warning: warning)
        }
        clippedQuietFrames = 0
        silentFrames = 0
        if !wasSounding {
            soundFrames = 0
            flutterFrames = 0
            bandFrames = 0
            roundingFrames = 0
            evidenceFrames = 0
            measured = 1
        }
        wasSounding = true
        soundFrames += 1
        let room = observation.roomDB ?? observation.levelDB
        let weight = max(mix, 1 / Double(soundFrames))
        means.level += weight * (observation.levelDB - means.level)
        means.room += weight * (room - means.room)
        means.modulation += weight * (observation.modulation - means.modulation)
        means.clipped += weight * (observation.clippedShare - means.clipped)
        Self.average(observation.upperFrequencyHz, into: &means.band, frames: &bandFrames, mix: mix)
        Self.average(observation.periodEvidence, into: &means.evidence, frames: &evidenceFrames, mix: mix)
        Self.average(observation.roundingDB, into: &means.rounding, frames: &roundingFrames, mix: mix)
        if flutterFrames > 0 || observation.pitched {
            flutterFrames += 1
            measured += mix * ((observation.pitched ? 1 : 0) - measured)
        }
        let unmeasured = flutterFrames == 0
            ? soundFrames > patienceFrames
            : flutterFrames > patienceFrames && measured < configuration.warningShare
        let waiting = flutterFrames == 0 && soundFrames <= patienceFrames
        let reason = condition(onsetOvershootDB: observation.onsetOvershootDB, roomRiseDB: observation.roomRiseDB) ?? (observation.pitched || waiting ? nil : Finding(problem: .noFlutter, measure: means.modulation))
        if unmeasured {
            warning = reason ?? Finding(problem: .noFlutter, measure: means.modulation)
            sinceCause = 0
        } else if flutterFrames > 0, measured >= configuration.measuredShare {
            warning = nil
        }
        return Verdict(reason: reason, warning: warning)
    }

    /// Adds a measure known in some frames only to its mean over the frames that had it (a plain
    /// mean until the memory is full, as for the measures every frame has).
    private static func average(_ value: Double?, into mean: inout Double, frames: inout Int, mix: Double) {
        guard let value else { return }
        frames += 1
        mean += max(mix, 1 / Double(frames)) * (value - mean)
    }

    /// The breath's level over the room's, in dB, from the sound's level over it.
    static func signalToNoise(levelDB: Double, roomDB: Double) -> Double {
        10 * logarithm10(signalToNoise(levelPower: powerRatio(levelDB - roomDB), noisePower: 1))
    }

    /// The breath's power over the noise's, from the sound's power and the noise's (at least
    /// 10⁻⁶, -60 dB): what the frames decide on, in decibels only when one is reported.
    static func signalToNoise(levelPower: Double, noisePower: Double) -> Double {
        max(levelPower / noisePower - 1, 1e-6)
    }

    /// A level in decibels as a power ratio.
    static func powerRatio(_ decibels: Double) -> Double { power(10, decibels / 10) }

    /// The level of a sound's noise: the room's and the recording's rounding together, in dB.
    static func noiseFloor(roomDB: Double, roundingDB: Double?) -> Double {
        guard roundingDB != nil else { return roomDB }
        return 10 * logarithm10(noisePower(roomDB: roomDB, roundingDB: roundingDB))
    }

    /// The power of a sound's noise, the room's and the recording's rounding together.
    static func noisePower(roomDB: Double, roundingDB: Double?) -> Double {
        powerRatio(roomDB) + (roundingDB.map(powerRatio) ?? 0)
    }

    /// The first condition that keeps the sound as it is now from being measured well, if any.
    private mutating func condition(onsetOvershootDB: Double?, roomRiseDB: Double?) -> Finding? {
        let rounding = roundingFrames > 0 ? means.rounding : nil
        if lastNoise.roomDB != means.room || lastNoise.roundingDB != rounding {
            lastNoise = (means.room, rounding, Self.noisePower(roomDB: means.room, roundingDB: rounding))
        }
        return Self.condition(
            clippedShare: means.clipped, ratio: Self.signalToNoise(levelPower: Self.powerRatio(means.level), noisePower: lastNoise.power),
            roomDB: means.room, modulation: means.modulation, upperFrequencyHz: bandFrames > 0 ? means.band : nil,
            onsetOvershootDB: onsetOvershootDB, roomRiseDB: roomRiseDB, roundingDB: rounding,
            periodEvidence: evidenceFrames > 0 ? means.evidence : nil, configuration: configuration,
            noisyMarginRatio: noisyMarginRatio)
    }

    /// The first condition (in the order above) that a sound with these averages meets, if any.
    /// `ratio` is the breath's power over the noise's (``signalToNoise(levelPower:noisePower:)``),
    /// `noisyMarginRatio` the configuration's `noisyMarginDB` as a power ratio.
    static func condition(
        clippedShare: Double, ratio: Double?, roomDB: Double?, modulation: Double, upperFrequencyHz: Double?,
        onsetOvershootDB: Double? = nil, roomRiseDB: Double? = nil, roundingDB: Double? = nil, periodEvidence: Double? = nil,
        configuration c: Configuration, noisyMarginRatio: Double
    ) -> Finding? {
        if clippedShare >= c.clippedShareLimit { return Finding(problem: .clipped, measure: clippedShare) }
        if let overshoot = onsetOvershootDB, overshoot >= c.gainControlOvershootDB {
            return Finding(problem: .gainControl, measure: overshoot)
        }
        if let rise = roomRiseDB, rise >= c.gainControlRoomRiseDB { return Finding(problem: .gainControl, measure: rise) }
        if let band = upperFrequencyHz, band < c.narrowBandHz { return Finding(problem: .bandLimited, measure: band) }
        let undiluted = modulation * (1 + 1 / (ratio ?? .infinity))
        if undiluted < c.shallowModulation {
            if let evidence = periodEvidence, evidence < c.noFlutterEvidence { return Finding(problem: .noFlutter, measure: modulation) }
            return Finding(problem: .tooFar, measure: undiluted)
        }
        if let ratio, let roomDB, ratio < noisyMarginRatio {
            let noisy = roomDB > c.quietRoomDBFS && roomDB >= (roundingDB ?? -.infinity)
            return Finding(problem: noisy ? .tooNoisy : .tooQuiet, measure: 10 * logarithm10(ratio))
        }
        return nil
    }

    /// The placement check's verdict on a whole sound from its averages: ``SignalProblem/clipped``
    /// when it was clipped; none when its flutter was reported in at least `measuredShare` of it;
    /// otherwise the condition its averages meet, else the reason given for most of its time
    /// without a pitch, else ``SignalProblem/noFlutter``.
    public static func verdict(
        on figures: SignalFigures, roomDB: Double?, roundingDB: Double? = nil, flutterShare: Double,
        unmeasured: UnmeasuredTime, configuration: Configuration
    ) -> SignalProblem? {
        if figures.clippedShare >= configuration.clippedShareLimit { return .clipped }
        guard flutterShare < configuration.measuredShare else { return nil }
        let averages = condition(
            clippedShare: figures.clippedShare, ratio: figures.snrDB.map(powerRatio), roomDB: roomDB, modulation: figures.modulation,
            upperFrequencyHz: figures.upperFrequencyHz, roundingDB: roundingDB, configuration: configuration,
            noisyMarginRatio: powerRatio(configuration.noisyMarginDB))
        return averages?.problem ?? unmeasured.reasons.first ?? .noFlutter
    }
}

// JSON lives in the outer modules; Embedded Swift has no Codable.
#if !hasFeature(Embedded)
extension SignalProblem: Codable {}
extension SignalCheck.Configuration: Codable {
    /// Decodes stored settings tolerantly: a parameter missing from them (stored before it
    /// existed) takes its default, and keys this release does not know are ignored.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        try c.update(&patience, from: .patience)
        try c.update(&memoryTime, from: .memoryTime)
        try c.update(&holdTime, from: .holdTime)
        try c.update(&measuredShare, from: .measuredShare)
        // A document made before `silentDBFS` existed reads a level no frame lies under.
        silentDBFS = SessionFrame.lowestLevelDB
        try c.update(&silentDBFS, from: .silentDBFS)
        try c.update(&warningShare, from: .warningShare)
        try c.update(&clippedShareLimit, from: .clippedShareLimit)
        try c.update(&noisyMarginDB, from: .noisyMarginDB)
        try c.update(&quietRoomDBFS, from: .quietRoomDBFS)
        try c.update(&shallowModulation, from: .shallowModulation)
        try c.update(&narrowBandHz, from: .narrowBandHz)
        try c.update(&gainControlOvershootDB, from: .gainControlOvershootDB)
        // A document made before the room's rise was read names no gain control by it.
        gainControlRoomRiseDB = Self.riseNoRoomMakes
        try c.update(&gainControlRoomRiseDB, from: .gainControlRoomRiseDB)
        // A document made before the period evidence was read names too far whatever it.
        noFlutterEvidence = 0
        try c.update(&noFlutterEvidence, from: .noFlutterEvidence)
    }
}
#endif
