/// Finds exhalations through the device, huff coughs and inhalations in a stream of tracker
/// frames (seed 000 sections 1 and 4C: energy gating, filtering and the tracker's confidence as
/// layers).
///
/// A sound starts when the level rises `onMarginDB` above the noise floor and lasts while it stays
/// `offMarginDB` above it, bridging dips shorter than `hangover`. Such a sound becomes an
/// exhalation only once the tracker has held a flutter pitch in loud frames for `confirmDuration`
/// and the sound has lasted `minimumDuration`: breath noise on inhalation, speech, a cough or a
/// door have no steady flutter in the band, so they never start one. Those frames lie within
/// `releaseDropDB` of the sound's loudest (since its start, or over the last `maximumConfirmDelay`
/// of a long wait): the device makes the flutter of the sound it makes, so a flutter heard only
/// once a sound has fallen that far is another sound's heard through its tail, such as a fan
/// beating in the band while a phone's gain control recovers after a breath. A loud frame lies
/// `onMarginDB` over the floor or, once exhalations have been heard, `offMarginDB` over it and no
/// more than `releaseDropDB` under their mean level: in a room with music or a television the floor
/// rises, and a breath standing 5-10 dB over it crosses the start margin only now and then while
/// its flutter is heard throughout. The exhalation is reported from where its sound rose to within
/// `releaseDropDB` of the level of the flutter that confirmed it (back as far as the sound, or a
/// chance exhalation withdrawn before it in the same sound, and at most `maximumConfirmDelay`
/// before the flutter): the tracker first hears a flutter 0.2-1 s after the rocker opens, by
/// chance, and an exhalation's own sound does not wait for it. Its decisions count from where the
/// sound did, but no earlier than `onsetAllowance` before the flutter that confirmed it. It ends
/// when the level has been gone for `hangover`, or the flutter for `flutterGap` (an exhalation is
/// one sound through the device: the flutter can fade for a moment while the air keeps flowing), at
/// the last frame that had both. An
/// exhalation shorter than `minimumBreath` to that frame is withdrawn (a flutter heard on after the
/// level has gone, from a room's own periodicity, does not lengthen it): no breath through the
/// device is that short, while speech, music and plain breathing can beat in the band for a moment;
/// so is one whose flutter the tracker heard afresh in less than `minimumHeardShare` of its first
/// `minimumBreath` (a chance track is mostly held between single estimates; `firstHeardShare` for
/// the session's first exhalation, before anything has said that a device is there, and
/// `clearFirstHeardShare` once `soundsWithoutDevice` sounds of `longSound` or more have ended
/// without a flutter before it: someone breathing near the phone without the device). A first
/// exhalation heard in `firstHeardShare` but not in `clearFirstHeardShare` is doubtful: it stands
/// only once another exhalation is heard (`minimumHeardShare`) within `doubtfulFirstWait` of its
/// end, since a chance breath without the device comes alone, and is withdrawn otherwise. In that share
/// a slow estimate, below `slowFlutterFrequency`, counts only when it correlates
/// `slowFlutterCorrelation` or more (``countsAsHeard(pitch:confidence:)``): breath's own loudness
/// fluctuates about equally in every octave, so most of its power per hertz lies at the slow rates,
/// where a span also holds the fewest cycles. When its sound goes on, a new sound starts where the
/// sound last became loud after that flutter, so a breath that follows speech without a pause
/// starts at its own onset, not where the speech's chance flutter was withdrawn.
///
/// A sound that never flutters is a huff cough when it is loud, `huffMarginDB` over the floor
/// and, once exhalations have been heard, no more than `huffBelowExhalationDB` below their mean
/// level (a huff is forceful; an inhalation or a voice across the room is not), and its
/// ``LoudestStretch`` (the frames within `huffStretchDB` of its peak) is short (`huffDurations`):
/// a huff is one burst, while a sentence or a tune without a pause keeps coming back near its
/// loudest. It is an inhalation when it is quieter and, as a whole, `inhalationDurations` long,
/// and is ignored otherwise. Decisions refer back to earlier frames by index; none lies further
/// back than ``decisionDelay`` frames but the first frame of a huff cough or an inhalation, which
/// lies at most ``soundReach`` frames back, and that of a doubtful first exhalation, at most
/// ``longestHold`` frames back; the frames from a doubtful exhalation's first wait for its outcome
/// (``holds(frame:)``).
public struct ExhalationDetector {
    /// The detector's parameters in real units.
    public struct Configuration: Sendable, Hashable {
        /// Level over the noise floor that starts a sound, in dB (default 10).
        public var onMarginDB: Double = 10
        /// Level over the noise floor that keeps a sound going, in dB (default 5).
        public var offMarginDB: Double = 5
        /// A fixed noise floor in dB (a calibration); nil to learn it (the default).
        public var noiseFloorDB: Double?
        /// Share of recent levels outside exhalations that lie below the learnt floor (default 0.2).
        public var floorPercentile: Double = 0.2
        /// How much recent sound outside exhalations the learnt floor considers, in seconds (default 5).
        public var floorWindow: Double = 5
        /// Levels below this never count as sound, in dB (default -100).
        public var absoluteFloorDB: Double = -100
        /// Flutter needed before a sound counts as an exhalation, in seconds (default 0.1).
        public var confirmDuration: Double = 0.1
        /// Shortest exhalation, in seconds (default 0.5).
        public var minimumDuration: Double = 0.5
        /// How long before its confirming flutter an exhalation's decisions (its length, the share
        /// of it heard) may count from, in seconds (default 0.4: the tracker reports a flutter about
        /// 0.25 s after it begins). The exhalation reported starts where its sound rose.
        public var onsetAllowance: Double = 0.4
        /// Longest wait from the start of a sound to its confirmation, in seconds (default 1); a
        /// sound that has not fluttered by then is taken to start this long ago, so that a breath
        /// after a long sound (speech, breathing) starts where its own sound did, whenever its
        /// flutter comes.
        public var maximumConfirmDelay: Double = 1
        /// During an exhalation, frames this far below the exhalation's own mean level count as
        /// quiet whatever the floor; before one, frames within it of the mean level of the
        /// exhalations heard so far may confirm a flutter, and frames further below the loudest of
        /// the sound waiting for it may not; in dB (default 12).
        public var releaseDropDB: Double = 12
        /// Gap in level that ends a sound, in seconds (default 0.3).
        public var hangover: Double = 0.3
        /// Gap in flutter that ends an exhalation while its sound goes on, in seconds (default 1).
        public var flutterGap: Double = 1
        /// Shortest exhalation that counts as a breath, from its start to its last frame both loud
        /// and fluttering (where it would be reported to end), in seconds (default 1); a shorter one
        /// is withdrawn.
        public var minimumBreath: Double = 1
        /// Least share of an exhalation's frames, from its first flutter to `minimumBreath` after
        /// its start, in which the tracker heard the flutter afresh rather than held it (default
        /// 0.4). A chance track in plain breathing is mostly held between single estimates: on the
        /// first 120 random tuning sessions its share was 0.44 where the true breaths' was 0.93-1.
        /// Breaths in the 76 plain exhalations / extra breaths / true breaths found of 945: 2 / 4 /
        /// 912 with 0.3, 1 / 3 / 912 with 0.4, 0 / 1 / 907 with 0.5, 0 / 0 / 902 with 0.6.
        public var minimumHeardShare: Double = 0.4
        /// The least heard share (as `minimumHeardShare`) of the session's first exhalation, before
        /// any has been heard (default 0.5). Until then nothing says a device is there at all:
        /// someone breathing near the phone without one makes only first exhalations. On 400
        /// random tuning sessions breathed without the device it took 5 of the 11 breaths found
        /// there (all slow chance tracks); with the device it cost 4 of 3,078 true breaths
        /// (docs/real-breath.md, "The breaths left without the device").
        public var firstHeardShare: Double = 0.5
        /// How many sounds of `longSound` or more that ended without a flutter before the session's
        /// first exhalation say that someone is breathing without the device (default 5); from then
        /// on the first exhalation needs `clearFirstHeardShare`. Someone breathing near the phone
        /// without a device makes one such sound after another, while a session with the device
        /// seldom makes five before its first breath: 1 of 1,617 random tuning sessions (tuning
        /// 1,600), whose first breath was heard in 0.82 of its first second
        /// (docs/real-breath.md, "Many long sounds before the first breath").
        public var soundsWithoutDevice: Int = 5
        /// The shortest sound that counts towards `soundsWithoutDevice`, in seconds (default 1:
        /// an exhalation's length).
        public var longSound: Double = 1
        /// The least heard share (as `firstHeardShare`) of the session's first exhalation after
        /// `soundsWithoutDevice` long sounds without a flutter (default 0.75: nine in ten true first
        /// breaths are heard at least this often; the three breaths found after five or more such
        /// sounds in 13,613 exhalations without the device were heard in 0.52-0.69).
        public var clearFirstHeardShare: Double = 0.75
        /// How long after a doubtful first exhalation has ended another must be heard for it to
        /// stand, in seconds (default 10; 0 lets a first exhalation stand once it passes
        /// `firstHeardShare`). The session's first exhalation heard in `firstHeardShare` of its first
        /// `minimumBreath` but not in `clearFirstHeardShare` is doubtful: the chance breaths of
        /// someone breathing near the phone without a device are heard that often (0.52-0.69, and
        /// they come one to a session), and so are about one in ten true first breaths, which a
        /// second exhalation soon follows. A doubtful exhalation stands once the next one passes
        /// `minimumHeardShare`; it is withdrawn when none has within this time (or within
        /// twice this time of its decision, whatever is under way), and when the session ends. Its
        /// frames wait for the outcome (``holds(frame:)``).
        public var doubtfulFirstWait: Double = 10
        /// Flutter rate below which an estimate counts towards `minimumHeardShare` only when it
        /// correlates `slowFlutterCorrelation` or more, in Hz (default 15).
        public var slowFlutterFrequency: Double = 15
        /// Least correlation of a slow estimate that counts towards `minimumHeardShare` (default
        /// 0.62; 0 counts every estimate). Breath without the device is heard by chance mostly at
        /// slow rates: of 45 breaths found in 400 random tuning sessions breathed without the
        /// device (3,397 exhalations), 41 held a flutter under 15 Hz, whose estimates correlated
        /// 0.66 in the median frame against 0.88 for true flutters at 10-15 Hz. With this test: 11
        /// breaths there, and in the same sessions with the device 3,078 true breaths found against
        /// 3,089 and 3 extra against 10 (docs/real-breath.md, "Breathing without the device").
        public var slowFlutterCorrelation: Double = 0.62
        /// Durations of a huff cough, in seconds (default 0.15-1.5).
        public var huffDurations: ClosedRange<Double> = 0.15...1.5
        /// Loudness of a huff cough over the noise floor, in dB (default 20).
        public var huffMarginDB: Double = 20
        /// How far below the mean level of the exhalations heard so far a huff cough may peak, in dB
        /// (default 6).
        public var huffBelowExhalationDB: Double = 6
        /// How far under a sound's peak its loudest stretch reaches, the part a huff cough is
        /// classified by, in dB (default 6: a huff fades from its peak at once, while the syllables
        /// of running speech sway by about this much).
        public var huffStretchDB: Double = 6
        /// Durations of an audible inhalation, in seconds (default 0.3-3).
        public var inhalationDurations: ClosedRange<Double> = 0.3...3

        public init() {}

        /// Throws if any value is out of its range, naming the parameter, the value and the limit.
        public func validate() throws(EngineConfigurationError) {
            try require(onMarginDB > 0 && onMarginDB <= 60, "onMarginDB", onMarginDB, "in (0, 60] dB")
            try require(offMarginDB >= 0 && offMarginDB <= onMarginDB, "offMarginDB", offMarginDB, "between 0 and onMarginDB (\(onMarginDB) dB)")
            if let noiseFloorDB {
                try require(noiseFloorDB >= -200 && noiseFloorDB <= 0, "noiseFloorDB", noiseFloorDB, "between -200 and 0 dB")
            }
            try require(floorPercentile >= 0 && floorPercentile <= 0.5, "floorPercentile", floorPercentile, "between 0 and 0.5")
            try require(floorWindow >= 0.5 && floorWindow <= 120, "floorWindow", floorWindow, "between 0.5 and 120 s")
            try require(confirmDuration >= 0 && confirmDuration <= 2, "confirmDuration", confirmDuration, "between 0 and 2 s")
            try require(minimumDuration >= 0.1 && minimumDuration <= 10, "minimumDuration", minimumDuration, "between 0.1 and 10 s")
            try require(maximumConfirmDelay >= max(confirmDuration, minimumDuration) && maximumConfirmDelay <= 5, "maximumConfirmDelay", maximumConfirmDelay, "between max(confirmDuration, minimumDuration) and 5 s")
            try require(releaseDropDB >= offMarginDB && releaseDropDB <= 80, "releaseDropDB", releaseDropDB, "between offMarginDB (\(offMarginDB) dB) and 80 dB")
            try require(onsetAllowance >= 0 && onsetAllowance <= 2, "onsetAllowance", onsetAllowance, "between 0 and 2 s")
            try require(hangover >= 0.02 && hangover <= 2, "hangover", hangover, "between 0.02 and 2 s")
            try require(flutterGap >= hangover && flutterGap <= 3, "flutterGap", flutterGap, "between hangover (\(hangover) s) and 3 s")
            try require(minimumBreath >= 0 && minimumBreath <= 3, "minimumBreath", minimumBreath, "between 0 and 3 s")
            try require(minimumHeardShare >= 0 && minimumHeardShare <= 1, "minimumHeardShare", minimumHeardShare, "between 0 and 1")
            try require(firstHeardShare >= 0 && firstHeardShare <= 1, "firstHeardShare", firstHeardShare, "between 0 and 1")
            try require(soundsWithoutDevice >= 1 && soundsWithoutDevice <= 1000, "soundsWithoutDevice", Double(soundsWithoutDevice), "between 1 and 1000")
            try require(longSound >= 0 && longSound <= 30, "longSound", longSound, "between 0 and 30 s")
            try require(clearFirstHeardShare >= 0 && clearFirstHeardShare <= 1, "clearFirstHeardShare", clearFirstHeardShare, "between 0 and 1")
            try require(doubtfulFirstWait >= 0 && doubtfulFirstWait <= 60, "doubtfulFirstWait", doubtfulFirstWait, "between 0 and 60 s")
            try require(slowFlutterFrequency >= 0 && slowFlutterFrequency <= 100, "slowFlutterFrequency", slowFlutterFrequency, "between 0 and 100 Hz")
            try require(slowFlutterCorrelation >= 0 && slowFlutterCorrelation <= 1, "slowFlutterCorrelation", slowFlutterCorrelation, "between 0 and 1")
            try require(huffDurations.lowerBound > 0, "huffDurations", huffDurations.lowerBound, "positive")
            try require(huffMarginDB >= onMarginDB, "huffMarginDB", huffMarginDB, "at least onMarginDB (\(onMarginDB) dB)")
            try require(huffBelowExhalationDB >= 0 && huffBelowExhalationDB <= 60, "huffBelowExhalationDB", huffBelowExhalationDB, "between 0 and 60 dB")
            try require(huffStretchDB > 0 && huffStretchDB <= 40, "huffStretchDB", huffStretchDB, "in (0, 40] dB")
            try require(inhalationDurations.lowerBound > 0, "inhalationDurations", inhalationDurations.lowerBound, "positive")
        }
    }

    /// What the detector decided, with frame indices counted from the first frame.
    public enum Decision: Sendable, Hashable {
        /// An exhalation starting at `first` has been confirmed.
        case exhalationStarted(first: Int)
        /// The current exhalation ended with frame `last`.
        case exhalationEnded(last: Int)
        /// The current exhalation, from frame `first`, was too short to be a breath: its frames
        /// are not an exhalation after all.
        case exhalationWithdrawn(first: Int)
        /// A doubtful first exhalation over frames `first...last` (see
        /// ``Configuration/doubtfulFirstWait``) was not followed by another in time: its frames are
        /// not an exhalation after all.
        case doubtfulExhalationWithdrawn(first: Int, last: Int)
        /// A huff cough over frames `first...last`, its loudest stretch, within a sound over
        /// frames `sound` (the whole of it, which is an inhalation's length should the analyser
        /// find that it was the breath in before an exhalation).
        case huffCough(first: Int, last: Int, sound: ClosedRange<Int>)
        /// An inhalation over frames `first...last`.
        case inhalation(first: Int, last: Int)
    }

    public let configuration: Configuration
    /// Spacing of the frames in seconds.
    public let frameInterval: Double
    /// The furthest back, in frames, that a decision can refer: an exhalation withdrawn
    /// `hangover` after its `minimumBreath` refers back to where its sound rose, which may lie
    /// `maximumConfirmDelay` before its flutter.
    public let decisionDelay: Int
    /// The most frames from a doubtful first exhalation's first frame to the newest when it is
    /// decided: the frames from there on wait (``holds(frame:)``).
    public let longestHold: Int
    /// The furthest back, in frames, that the first frame of a huff cough or an inhalation can lie:
    /// the longest inhalation or huff (`inhalationDurations`, `huffDurations`) and the `hangover`
    /// after it; a huff cough's loudest stretch is sought among these frames.
    public let soundReach: Int
    private var loudness: LoudestStretch

    private var floor: NoiseFloor
    /// The median of the same levels: where fluctuating interference (speech, music) typically
    /// lies, for the signal check.
    private var background: NoiseFloor
    /// The share of levels below the background.
    static let backgroundPercentile = 0.5
    private let confirmFrames: Int
    private let minimumFrames: Int
    /// The longest a sound waits for the flutter that confirms it as an exhalation, in frames
    /// (`maximumConfirmDelay`).
    let maximumConfirmFrames: Int
    private let hangoverFrames: Int
    private let flutterGapFrames: Int
    private let minimumBreathFrames: Int
    private let onsetFrames: Int
    private let longSoundFrames: Int
    private let doubtWaitFrames: Int
    /// The session's first exhalation while it is doubtful: its reported first frame, the frame it
    /// became doubtful, and once it has ended its last frame. Once it has ended it counts as heard
    /// (its level among the exhalations', the next exhalation judged as a later one) until it is
    /// withdrawn.
    private var doubtful: (first: Int, since: Int, last: Int?)?
    /// Whether the exhalation under way is the doubtful first one (it has not ended yet).
    private var doubtfulUnderWay: Bool { doubtful != nil && doubtful?.last == nil }
    /// Sounds of `longSound` or more that ended without a flutter before the first exhalation.
    private var longSoundsWithoutFlutter = 0
    private var frameIndex = 0
    private var sound: Sound?
    private var exhalationLevelSum = 0.0
    private var exhalationCount = 0
    /// The mean level of the exhalations heard so far, in dB; nil before the first.
    private var meanExhalationLevel: Double? { exhalationCount > 0 ? exhalationLevelSum / Double(exhalationCount) : nil }

    private struct Sound {
        var first: Int
        /// The sound's first frame, which stays where it was while `first` follows the newest
        /// frames as the sound waits for a flutter (`maximumConfirmDelay`): a sound that never
        /// flutters is classified by all of it.
        let began: Int
        var lastLoud: Int
        /// The first frame of the latest run of loud frames.
        var loudSince: Int
        var lastPitched: Int
        var pitchedRun = 0
        var peakLevel: Double
        var floorLevel: Double
        var exhaling = false
        /// The exhalation's first frame as reported: where its sound rose to the flutter's level.
        var reportedFirst = 0
        /// For the sound going on after a withdrawn exhalation, that exhalation's reported first:
        /// as far back as this one's reported start may reach (nil: the sound's first).
        var riseLimit: Int? = nil
        var firstPitched = 0
        var heardFrames = 0
        var heardRun = 0
        var pitchedLevelSum = 0.0
        var pitchedFrames = 0
        var meanPitchedLevel: Double? { pitchedFrames > 0 ? pitchedLevelSum / Double(pitchedFrames) : nil }
        /// Whether the sound, from its first frame to its last frame both loud and fluttering (where
        /// an exhalation is reported to end), is shorter than `frames`.
        func isShort(than frames: Int) -> Bool { min(lastPitched, lastLoud) - first + 1 < frames }
        /// The sound's length in frames, from its first frame to its last loud one.
        var loudFrames: Int { lastLoud - began + 1 }
    }

    /// The current noise floor in dB, nil before the first frame.
    public var noiseFloorDB: Double? { floor.level }
    /// The median level outside exhalations over the floor's window, in dB, nil before the first
    /// frame (learnt even when the floor is fixed).
    public var backgroundDB: Double? { background.level }
    /// Whether an exhalation is under way.
    public var isExhaling: Bool { sound?.exhaling ?? false }
    /// Whether a sound (perhaps an exhalation) is under way.
    public var isListening: Bool { sound != nil }
    /// How long after the current sound's first frame the newest frame lies, in seconds; nil
    /// between sounds.
    public var timeIntoSound: Double? { sound.map { Double(frameIndex - 1 - $0.first) * frameInterval } }

    /// Whether the frame `index` must wait before it is final: it lies in or after a doubtful first
    /// exhalation (``Configuration/doubtfulFirstWait``).
    public func holds(frame index: Int) -> Bool {
        guard let doubtful else { return false }
        return index >= doubtful.first
    }

    /// Whether a flutter in a frame at `levelDB` could confirm an exhalation, against the newest
    /// frame's floor: the level starts a sound (`onMarginDB` over the floor), or keeps one going
    /// and lies within `releaseDropDB` of the mean level of the exhalations heard so far.
    public func confirms(levelDB: Double) -> Bool {
        confirms(levelDB: levelDB, floorLevel: max(floor.level ?? levelDB, configuration.absoluteFloorDB))
    }

    /// Whether a frame at `levelDB` lies within `releaseDropDB` of the loudest of frames
    /// `first...last`, the sound waiting for its flutter.
    private func isNearItsPeak(levelDB: Double, from first: Int, through last: Int) -> Bool {
        levelDB >= loudness.peak(from: first, through: last) - configuration.releaseDropDB
    }

    private func confirms(levelDB: Double, floorLevel: Double) -> Bool {
        levelDB >= floorLevel + configuration.onMarginDB
            || levelDB >= floorLevel + configuration.offMarginDB
                && levelDB >= (meanExhalationLevel ?? .infinity) - configuration.releaseDropDB
    }

    public init(configuration: Configuration, frameInterval: Double) throws(EngineConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        self.frameInterval = frameInterval
        floor = NoiseFloor(
            fixedLevel: configuration.noiseFloorDB, percentile: configuration.floorPercentile,
            windowFrames: Int((configuration.floorWindow / frameInterval).rounded()))
        background = NoiseFloor(
            fixedLevel: nil, percentile: Self.backgroundPercentile,
            windowFrames: Int((configuration.floorWindow / frameInterval).rounded()))
        func frames(_ seconds: Double) -> Int { max(1, Int((seconds / frameInterval).rounded())) }
        confirmFrames = frames(configuration.confirmDuration)
        minimumFrames = frames(configuration.minimumDuration)
        maximumConfirmFrames = frames(configuration.maximumConfirmDelay)
        hangoverFrames = frames(configuration.hangover)
        flutterGapFrames = frames(configuration.flutterGap)
        minimumBreathFrames = Int((configuration.minimumBreath / frameInterval).rounded())
        onsetFrames = frames(configuration.onsetAllowance)
        longSoundFrames = Int((configuration.longSound / frameInterval).rounded())
        doubtWaitFrames = Int((configuration.doubtfulFirstWait / frameInterval).rounded())
        decisionDelay = max(flutterGapFrames, maximumConfirmFrames + minimumBreathFrames + hangoverFrames) + 1
        longestHold = doubtWaitFrames > 0 ? decisionDelay + 2 * doubtWaitFrames + 1 : 0
        let longestSound = max(configuration.huffDurations.upperBound, configuration.inhalationDurations.upperBound)
        soundReach = max(decisionDelay, Int((longestSound / frameInterval).rounded(.up)) + hangoverFrames + 1)
        loudness = LoudestStretch(reach: soundReach)
    }

    public mutating func reset() {
        floor.reset()
        background.reset()
        loudness.reset()
        frameIndex = 0
        sound = nil
        exhalationLevelSum = 0
        exhalationCount = 0
        longSoundsWithoutFlutter = 0
        doubtful = nil
    }

    /// Whether a frame in which the tracker's estimate correlated `confidence` (0 for none), its
    /// flutter reported at `pitch` Hz (nil while a track is too young to report), counts towards
    /// `minimumHeardShare`: any estimate but a slow one under `slowFlutterCorrelation`.
    public func countsAsHeard(pitch: Double?, confidence: Double) -> Bool {
        guard confidence > 0 else { return false }
        guard let pitch, pitch < configuration.slowFlutterFrequency else { return true }
        return confidence >= configuration.slowFlutterCorrelation
    }

    /// Takes the next frame's level (dB), whether the tracker reports a flutter pitch in it and
    /// whether it heard the flutter in this frame rather than holding it (the same as `pitched`
    /// when not given) and whether that counts towards `minimumHeardShare`
    /// (``countsAsHeard(pitch:confidence:)``; the same as `heard` when not given); returns what
    /// that frame decided, if anything (at most one decision per frame).
    public mutating func process(levelDB: Double, pitched: Bool, heard: Bool? = nil, counted: Bool? = nil) -> Decision? {
        let decision = step(levelDB: levelDB, pitched: pitched, heard: heard, counted: counted)
        return decision ?? resolveDoubt(at: frameIndex - 1, levelDB: levelDB)
    }

    private mutating func step(levelDB: Double, pitched: Bool, heard: Bool?, counted: Bool?) -> Decision? {
        let heard = heard ?? pitched
        let counted = counted ?? heard
        let i = frameIndex
        frameIndex += 1
        loudness.record(levelDB)
        floor.update(max(levelDB, configuration.absoluteFloorDB), frozen: isExhaling)
        background.update(max(levelDB, configuration.absoluteFloorDB), frozen: isExhaling)
        let floorLevel = max(floor.level ?? levelDB, configuration.absoluteFloorDB)
        var threshold = floorLevel + configuration.offMarginDB
        if let current = sound, current.exhaling, let breathLevel = current.meanPitchedLevel {
            threshold = max(threshold, breathLevel - configuration.releaseDropDB)
        }
        let loud = levelDB >= threshold
        guard var current = sound else {
            if levelDB >= floorLevel + configuration.onMarginDB {
                sound = Sound(first: i, began: i, lastLoud: i, loudSince: i, lastPitched: pitched ? i : i - 1, pitchedRun: pitched ? 1 : 0, peakLevel: levelDB - floorLevel, floorLevel: floorLevel)
            }
            return nil
        }
        if loud {
            if current.lastLoud != i - 1 { current.loudSince = i }
            current.lastLoud = i
        }
        if pitched && heard {
            current.lastPitched = i
            current.pitchedLevelSum += levelDB
            current.pitchedFrames += 1
        }
        current.pitchedRun = pitched
            && (current.exhaling || confirms(levelDB: levelDB, floorLevel: floorLevel) && isNearItsPeak(levelDB: levelDB, from: current.first, through: i))
            ? current.pitchedRun + 1 : 0
        current.heardRun = current.pitchedRun == 0 ? 0 : current.heardRun + (counted ? 1 : 0)
        if levelDB - floorLevel > current.peakLevel {
            current.peakLevel = levelDB - floorLevel
            current.floorLevel = floorLevel
        }
        if current.exhaling, counted { current.heardFrames += 1 }
        if current.exhaling {
            let quiet = i - current.lastLoud > hangoverFrames
            let judged = i == current.first + minimumBreathFrames
            let judgedFrames = Double(i - current.firstPitched + 1)
            let unheard = judged && Double(current.heardFrames) < heardShareNeeded * judgedFrames
            if unheard || (quiet || i - current.lastPitched > hangoverFrames) && current.isShort(than: minimumBreathFrames) {
                sound = quiet ? nil : Self.continuation(of: current, at: i, levelDB: levelDB, floorLevel: floorLevel)
                if doubtfulUnderWay { doubtful = nil }
                return .exhalationWithdrawn(first: current.reportedFirst)
            }
            if judged {
                if doubtful?.last != nil {
                    doubtful = nil
                } else if doubtful == nil, exhalationCount == 0, doubtWaitFrames > 0,
                    Double(current.heardFrames) < configuration.clearFirstHeardShare * judgedFrames {
                    doubtful = (current.reportedFirst, i, nil)
                }
            }
            if quiet || i - current.lastPitched > flutterGapFrames {
                sound = nil
                let last = min(current.lastPitched, current.lastLoud)
                if doubtfulUnderWay { doubtful?.last = last }
                if let level = current.meanPitchedLevel {
                    exhalationLevelSum += level
                    exhalationCount += 1
                }
                return .exhalationEnded(last: last)
            }
        } else if current.pitchedRun >= confirmFrames && i - current.first + 1 >= minimumFrames {
            current.exhaling = true
            current.firstPitched = i - current.pitchedRun + 1
            current.heardFrames = current.heardRun
            current.reportedFirst = loudness.runStart(
                endingAt: current.firstPitched,
                notBefore: max(current.firstPitched - maximumConfirmFrames, min(current.first, current.riseLimit ?? current.first)),
                atLeast: (current.meanPitchedLevel ?? levelDB) - configuration.releaseDropDB)
            current.first = max(current.first, current.firstPitched - onsetFrames)
            sound = current
            return .exhalationStarted(first: current.reportedFirst)
        } else if i - current.lastLoud > hangoverFrames {
            sound = nil
            if current.loudFrames >= longSoundFrames { longSoundsWithoutFlutter += 1 }
            return classify(current)
        } else if i - current.first >= maximumConfirmFrames {
            current.first = i - maximumConfirmFrames + 1
        }
        sound = current
        return nil
    }

    /// The share of an exhalation's first `minimumBreath` in which its flutter must be heard afresh.
    private var heardShareNeeded: Double {
        guard exhalationCount == 0 else { return configuration.minimumHeardShare }
        return longSoundsWithoutFlutter >= configuration.soundsWithoutDevice
            ? configuration.clearFirstHeardShare : configuration.firstHeardShare
    }

    /// The sound that goes on after `withdrawn` was withdrawn at frame `i`: it starts where the
    /// sound last became loud after the withdrawn flutter (no later than now).
    private static func continuation(of withdrawn: Sound, at i: Int, levelDB: Double, floorLevel: Double) -> Sound {
        let first = min(i, max(withdrawn.loudSince, withdrawn.lastPitched + 1))
        var sound = Sound(first: first, began: first, lastLoud: i, loudSince: first, lastPitched: first - 1, peakLevel: levelDB - floorLevel, floorLevel: floorLevel)
        sound.riseLimit = withdrawn.reportedFirst
        return sound
    }

    /// Withdraws a doubtful first exhalation at frame `i` (at `levelDB`) when no other has been
    /// heard within `doubtfulFirstWait` of its end (and none is under way), or within twice that
    /// of its decision whatever is under way.
    private mutating func resolveDoubt(at i: Int, levelDB: Double) -> Decision? {
        guard let first = doubtful else { return nil }
        let late = i - first.since >= 2 * doubtWaitFrames
        if doubtfulUnderWay, let current = sound {
            guard late else { return nil }
            let floorLevel = max(floor.level ?? levelDB, configuration.absoluteFloorDB)
            sound = Self.continuation(of: current, at: i, levelDB: levelDB, floorLevel: floorLevel)
            doubtful = nil
            return .exhalationWithdrawn(first: first.first)
        }
        guard let last = first.last, late || (i - last > doubtWaitFrames && sound?.exhaling != true) else { return nil }
        withdrawDoubt()
        return .doubtfulExhalationWithdrawn(first: first.first, last: last)
    }

    /// Forgets the doubtful first exhalation, which counted as heard once it ended: the session's
    /// only one, so none has been heard after all.
    private mutating func withdrawDoubt() {
        if doubtful?.last != nil {
            exhalationLevelSum = 0
            exhalationCount = 0
        }
        doubtful = nil
    }

    /// Ends the stream: closes an exhalation or a sound still under way, then withdraws a doubtful
    /// first exhalation that nothing followed; call it until it returns nil.
    public mutating func finish() -> Decision? {
        guard let current = sound else {
            guard let first = doubtful else { return nil }
            withdrawDoubt()
            return first.last.map { .doubtfulExhalationWithdrawn(first: first.first, last: $0) }
        }
        sound = nil
        if current.exhaling {
            if current.isShort(than: minimumBreathFrames) || doubtfulUnderWay {
                if doubtfulUnderWay { doubtful = nil }
                return .exhalationWithdrawn(first: current.reportedFirst)
            }
            return .exhalationEnded(last: min(current.lastPitched, current.lastLoud))
        }
        return classify(current)
    }

    private func classify(_ sound: Sound) -> Decision? {
        let duration = Double(sound.loudFrames) * frameInterval
        let peak = sound.peakLevel + sound.floorLevel
        let forceful = peak >= (meanExhalationLevel ?? -.infinity) - configuration.huffBelowExhalationDB
        if sound.peakLevel >= configuration.huffMarginDB, forceful,
           let burst = loudness.stretch(from: sound.began, through: sound.lastLoud, marginDB: configuration.huffStretchDB),
           configuration.huffDurations.contains(Double(burst.count) * frameInterval) {
            return .huffCough(first: burst.lowerBound, last: burst.upperBound, sound: sound.began...sound.lastLoud)
        }
        if sound.peakLevel < configuration.huffMarginDB, configuration.inhalationDurations.contains(duration) {
            return .inhalation(first: sound.began, last: sound.lastLoud)
        }
        return nil
    }
}

// JSON lives in the outer modules; Embedded Swift has no Codable.
#if !hasFeature(Embedded)
extension ExhalationDetector.Configuration: Codable {
    /// Decodes stored settings tolerantly: a parameter missing from them (stored before it
    /// existed) takes its default, and keys this release does not know are ignored.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        noiseFloorDB = try c.decodeIfPresent(Double.self, forKey: .noiseFloorDB)
        try c.update(&onMarginDB, from: .onMarginDB)
        try c.update(&offMarginDB, from: .offMarginDB)
        try c.update(&floorPercentile, from: .floorPercentile)
        try c.update(&floorWindow, from: .floorWindow)
        try c.update(&absoluteFloorDB, from: .absoluteFloorDB)
        try c.update(&confirmDuration, from: .confirmDuration)
        try c.update(&minimumDuration, from: .minimumDuration)
        try c.update(&onsetAllowance, from: .onsetAllowance)
        try c.update(&maximumConfirmDelay, from: .maximumConfirmDelay)
        try c.update(&releaseDropDB, from: .releaseDropDB)
        try c.update(&hangover, from: .hangover)
        try c.update(&flutterGap, from: .flutterGap)
        try c.update(&minimumBreath, from: .minimumBreath)
        try c.update(&minimumHeardShare, from: .minimumHeardShare)
        try c.update(&firstHeardShare, from: .firstHeardShare)
        try c.update(&soundsWithoutDevice, from: .soundsWithoutDevice)
        try c.update(&longSound, from: .longSound)
        try c.update(&clearFirstHeardShare, from: .clearFirstHeardShare)
        try c.update(&doubtfulFirstWait, from: .doubtfulFirstWait)
        try c.update(&slowFlutterFrequency, from: .slowFlutterFrequency)
        try c.update(&slowFlutterCorrelation, from: .slowFlutterCorrelation)
        try c.update(&huffDurations, from: .huffDurations)
        try c.update(&huffMarginDB, from: .huffMarginDB)
        try c.update(&huffBelowExhalationDB, from: .huffBelowExhalationDB)
        try c.update(&huffStretchDB, from: .huffStretchDB)
        try c.update(&inhalationDurations, from: .inhalationDurations)
    }
}
#endif
