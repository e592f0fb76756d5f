/// How far an exhalation's sound overshoots its own level as it starts: the trace an automatic
/// gain control leaves (not the study's).
///
/// A phone's gain control follows the sound's level and steers its gain against it: quick to cut
/// when the level rises (its attack, tens of milliseconds), slow to give back when it falls (its
/// release, seconds). Between breaths it has turned the gain up for the quiet room, so each
/// exhalation starts too loud and is pulled down within the attack time; and an attack fast
/// enough to do that also flattens the rocker's pulses, 25-100 ms apart, so the flutter goes.
/// A breath heard as it is has no such peak: its pressure, and with it its sound, rises
/// over its first few tenths of a second.
///
/// The sound the detector hears often starts before the exhalation: an inhalation, a sigh or the
/// room's music runs into it. So the exhalation's onset is where the sound first comes within
/// `onsetRiseDB` (default 6 dB) of its upper quartile level (the exhalation's own level, which
/// holds most of a long sound). For every exhalation this meter takes the loudest frame of the
/// `onsetTime` (default 0.4 s) from there against the loudest frames of the rest, like against
/// like: the median of the loudest frames of its whole spans of `onsetTime` (the median, so
/// that the sound's fading tail does not count). A breath's level fluctuates by itself from
/// frame to frame (real breath by several dB), so its loudest frame in any 0.4 s stands over its
/// median level even where nothing overshoots: against the median level, breaths without gain
/// control read 1.1-4.1 dB with real breath (10th-90th percentile of the sessions) and 0.5-2.3 dB
/// with steady noise, and 31 % of the real-breath sessions without gain control were named gain
/// control; against the spans' loudest frames, -0.4-1.9 and -0.1-0.7 dB (on the first 400 random
/// tuning sessions, docs/accuracy-and-speed.md). It gives the median of that over the last
/// `remembered` (default 9) exhalations lasting at least `shortestExhalation` (default 1.5 s)
/// from their onset: a cough or a voice at one breath's start does not count for the session.
/// The first `longestSound` (default 20 s) of a sound are read. On the first 400, gain control
/// that cost coverage read as much as -19 dB when the onset was the sound's start, an inhalation
/// or music 20 dB under the breath having started the sound.
///
/// Frame by frame; no allocation (a sound's levels are kept in a buffer made by the initialiser).
struct OnsetOvershootMeter {
    /// The defaults: the first 0.4 s of an exhalation, exhalations of 1.5 s and more, the onset
    /// 6 dB under the sound's upper quartile, the last nine exhalations, 20 s of a sound.
    static let onsetTime = 0.4
    static let shortestExhalation = 1.5
    static let onsetRiseDB = 6.0
    static let remembered = 9
    static let longestSound = 20.0

    private let onsetFrames: Int
    private let shortestFrames: Int
    private let onsetRise: Double
    /// The sound going on: its levels (the first `levels.count`), how many frames it has, and
    /// whether it was taken for an exhalation.
    private var levels: [Double]
    /// The loudest frames of a sound's spans after its onset.
    private var peaks: [Double]
    private var frames = 0
    private var exhaling = false
    /// A histogram of levels in ``binWidth`` from ``lowestDB``, for the quantiles.
    private var histogram: [Int32]
    /// The histogram's resolution and range, in dB.
    private static let binWidth = 0.25
    private static let lowestDB = SessionFrame.lowestLevelDB
    /// The overshoots of the last finished exhalations.
    private var recent: RecentValues
    /// Their median, from the last exhalation's end.
    var overshootDB: Double? { recent.median }

    /// A meter for frames `frameInterval` seconds apart.
    init(
        frameInterval: Double, onsetTime: Double = Self.onsetTime, shortestExhalation: Double = Self.shortestExhalation,
        onsetRiseDB: Double = Self.onsetRiseDB, remembered: Int = Self.remembered, longestSound: Double = Self.longestSound
    ) {
        onsetFrames = max(1, Int((onsetTime / frameInterval).rounded()))
        shortestFrames = max(onsetFrames + 1, Int((shortestExhalation / frameInterval).rounded()))
        onsetRise = onsetRiseDB
        levels = [Double](repeating: 0, count: max(shortestFrames, Int((longestSound / frameInterval).rounded())))
        peaks = [Double](repeating: 0, count: levels.count / onsetFrames + 1)
        recent = RecentValues(capacity: remembered)
        histogram = [Int32](repeating: 0, count: Int(-Self.lowestDB / Self.binWidth) + 1)
    }

    mutating func reset() {
        endSound()
        recent.removeAll()
    }

    /// Takes one frame: its level in dB, whether a sound is going on, and whether that sound has
    /// been taken for an exhalation.
    mutating func process(levelDB: Double, sounding: Bool, exhaling: Bool) {
        guard sounding else {
            if self.exhaling, let overshoot = soundOvershoot() { recent.add(overshoot) }
            return endSound()
        }
        if frames < levels.count { levels[frames] = levelDB }
        frames += 1
        self.exhaling = self.exhaling || exhaling
    }

    /// The overshoot of the sound just ended, when its exhalation was long enough.
    private mutating func soundOvershoot() -> Double? {
        let n = min(frames, levels.count)
        guard n >= shortestFrames else { return nil }
        let reference = quantile(0.75, from: 0, to: n) - onsetRise
        guard let onset = levels[0..<n].firstIndex(where: { $0 >= reference }), n - onset >= shortestFrames else { return nil }
        let peak = levels[onset..<(onset + onsetFrames)].max() ?? reference
        return peak - laterPeaks(from: onset + onsetFrames, to: n)
    }

    /// The median of the loudest frames of the whole spans of `onsetFrames` within `start..<end`:
    /// what the onset's loudest frame is compared with, so that a level that merely fluctuates
    /// reads no overshoot however deep its fluctuations.
    private mutating func laterPeaks(from start: Int, to end: Int) -> Double {
        var spans = 0
        var first = start
        while first + onsetFrames <= end {
            peaks[spans] = levels[first..<(first + onsetFrames)].max() ?? 0
            spans += 1
            first += onsetFrames
        }
        guard spans > 0 else { return levels[start..<end].max() ?? 0 }
        sortPrefix(&peaks, count: spans)
        return medianOfSortedPrefix(peaks, count: spans)
    }

    /// The `share` quantile of the levels `start..<end`, to ``binWidth``.
    private mutating func quantile(_ share: Double, from start: Int, to end: Int) -> Double {
        for i in start..<end {
            let bin = Int(((levels[i] - Self.lowestDB) / Self.binWidth).rounded())
            histogram[min(max(bin, 0), histogram.count - 1)] += 1
        }
        let needed = max(1, Int((share * Double(end - start)).rounded(.up)))
        var seen = 0, result = 0.0
        for bin in histogram.indices where histogram[bin] > 0 {
            if seen < needed {
                seen += Int(histogram[bin])
                if seen >= needed { result = Self.lowestDB + Double(bin) * Self.binWidth }
            }
            histogram[bin] = 0
        }
        return result
    }

    private mutating func endSound() {
        frames = 0
        exhaling = false
    }
}
