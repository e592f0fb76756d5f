/// How far an exhalation's sound overshoots its own level as it starts: the trace an automatic
/// gain control leaves (not the study's).
///
/// A phone's gain control follows the sound's level and steers its gain against it: quick to cut
/// when the level rises (its attack, tens of milliseconds), slow to give back when it falls (its
/// release, seconds). Between breaths it has turned the gain up for the quiet room, so each
/// exhalation starts too loud and is pulled down within the attack time; and an attack fast
/// enough to do that also flattens the rocker's pulses, 25-100 ms apart, so the flutter goes.
/// A breath heard as it is has no such peak: its pressure, and with it its sound, rises
/// over its first few tenths of a second. So for every exhalation this meter takes the loudest
/// frame of its first `onsetTime` (default 0.4 s) against the median level of the rest (to
/// 0.25 dB; the median, so that the sound's fading tail does not count), and
/// gives the median of that over the last `remembered` (default 9) exhalations of at least
/// `shortestExhalation` (default 1.5 s): a cough or a voice at one breath's start does not
/// count for the session. On the first 30 random tuning sessions
/// the median overshoot was 0.6-1.9 dB in each of the 15 without gain control and 2.2-9.5 dB in
/// 13 of the 15 with it (1.8 dB and 0.7 dB in the other two, the second a fan louder than the
/// breaths, on which the gain control cost no flutter).
///
/// Frame by frame, no allocation.
struct OnsetOvershootMeter {
    /// The defaults: the first 0.4 s of an exhalation, exhalations of 1.5 s and more.
    static let onsetTime = 0.4
    static let shortestExhalation = 1.5
    static let remembered = 9

    private let onsetFrames: Int
    private let shortestFrames: Int
    /// The sound going on: its frames, the loudest of its onset, how many of the levels after it
    /// fell in each ``binWidth`` from ``lowestDB``, and whether it was taken for an exhalation.
    private var frames = 0
    private var onsetPeak = -Double.infinity
    private var laterLevels: [Int32]
    private var exhaling = false
    /// The histogram's resolution and range, in dB.
    private static let binWidth = 0.25
    private static let lowestDB = SessionFrame.lowestLevelDB
    /// The overshoots of the last finished exhalations (a ring), how many were kept, and a
    /// buffer to sort them in.
    private var recent: [Double]
    private var count = 0
    private var sorted: [Double]
    /// The median of `recent`, kept from the last exhalation's end.
    private(set) var overshootDB: Double?

    /// A meter for frames `frameInterval` seconds apart.
    init(
        frameInterval: Double, onsetTime: Double = Self.onsetTime, shortestExhalation: Double = Self.shortestExhalation,
        remembered: Int = Self.remembered
    ) {
        onsetFrames = max(1, Int((onsetTime / frameInterval).rounded()))
        shortestFrames = max(onsetFrames + 1, Int((shortestExhalation / frameInterval).rounded()))
        recent = [Double](repeating: 0, count: max(1, remembered))
        sorted = recent
        laterLevels = [Int32](repeating: 0, count: Int(-Self.lowestDB / Self.binWidth) + 1)
    }

    mutating func reset() {
        endSound()
        count = 0
        overshootDB = nil
    }

    /// Takes one frame: its level in dB, whether a sound is going on, and whether that sound has
    /// been taken for an exhalation.
    mutating func process(levelDB: Double, sounding: Bool, exhaling: Bool) {
        guard sounding else {
            if self.exhaling, frames >= shortestFrames { remember(onsetPeak - laterMedian) }
            return endSound()
        }
        frames += 1
        self.exhaling = self.exhaling || exhaling
        if frames <= onsetFrames {
            onsetPeak = max(onsetPeak, levelDB)
        } else {
            let bin = Int(((levelDB - Self.lowestDB) / Self.binWidth).rounded())
            laterLevels[min(max(bin, 0), laterLevels.count - 1)] += 1
        }
    }

    /// The median level after the onset, to ``binWidth``.
    private var laterMedian: Double {
        let half = (frames - onsetFrames + 1) / 2
        var seen = 0
        for (bin, count) in laterLevels.enumerated() {
            seen += Int(count)
            if seen >= half { return Self.lowestDB + Double(bin) * Self.binWidth }
        }
        return 0
    }

    private mutating func remember(_ overshoot: Double) {
        recent[count % recent.count] = overshoot
        count += 1
        let n = min(count, recent.count)
        for i in 0..<n { sorted[i] = recent[i] }
        // Insertion sort: at most `remembered` values, once per exhalation.
        for i in 1..<max(1, n) {
            let value = sorted[i]
            var j = i
            while j > 0, sorted[j - 1] > value {
                sorted[j] = sorted[j - 1]
                j -= 1
            }
            sorted[j] = value
        }
        overshootDB = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }

    private mutating func endSound() {
        if frames > onsetFrames {
            for i in laterLevels.indices { laterLevels[i] = 0 }
        }
        frames = 0
        onsetPeak = -.infinity
        exhaling = false
    }
}
