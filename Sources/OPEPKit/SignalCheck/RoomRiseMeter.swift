/// How far the room's level rises across the pauses between exhalations: the trace a phone's
/// automatic gain control leaves while it gives its gain back (not the study's).
///
/// A gain control cuts its gain within tens of milliseconds of a loud sound and gives it back
/// over seconds once the sound is gone (its release). After each exhalation the room therefore
/// sounds quieter than it is, and grows louder through the pause as the gain returns, while a
/// room heard as it is keeps its level, or rises only by chance (a voice, the music's next
/// phrase). ``OnsetOvershootMeter`` catches the same pumping at the breath's start; a gain
/// control with a slow attack, or whose room's rise is masked there by an inhalation, is caught
/// here.
///
/// For every pause of at least `shortestPause` (default 1.5 s) between two exhalations, the level
/// the room reaches in the last `lateSpan` (default 0.5 s) before the next exhalation is compared
/// with its level from `settleTime` (default 0.3 s: the breath's own tail and the room's echo) to
/// `settleTime + earlySpan` (`earlySpan` default 0.5 s) after the last one ended: each as the
/// `quantile` (default 10 %) of the frames heard there, the room's floor under passing sounds;
/// frames under `heardDBFS` (default -110 dBFS: digital silence, a sound rounded to 8 bits between
/// breaths) are left out, and a window with fewer than `leastHeardShare` (default 20 %) of its
/// frames heard gives no rise. ``riseDB`` is the lower quartile of the rises over the last
/// `remembered` (default 9) pauses, once `leastPauses` (default 3) have been measured: a rise in
/// most pauses, not in one or two. On the first 200 random tuning sessions (their frames through
/// `opep analyze --format csv`, offline) it read 2 dB or more in 64 of the 98 with gain control
/// drawn and in 1 of the 89 without (a clipped telephone line; its median over pauses, in place of
/// the quartile, read 2 dB or more in 8 without: speech or music starting within a pause).
///
/// Frame by frame, from the frames as they become final; no allocation after set-up.
struct RoomRiseMeter {
    /// The defaults: pauses of 1.5 s and more, the room 0.3-0.8 s after an exhalation against its
    /// last 0.5 s, the 10 % quantile, frames under -110 dBFS unheard, 20 % heard, nine pauses
    /// remembered, three needed.
    static let shortestPause = 1.5
    static let settleTime = 0.3
    static let earlySpan = 0.5
    static let lateSpan = 0.5
    static let quantile = 0.1
    static let heardDBFS = -110.0
    static let leastHeardShare = 0.2
    static let remembered = 9
    static let leastPauses = 3

    private let shortestFrames: Int
    private let settleFrames: Int
    private let leastHeard: Int
    /// The heard levels of the current pause's early window, and of its last `lateSpan` (a ring
    /// of all its frames, `-infinity` where unheard).
    private var early: [Double]
    private var earlyCount = 0
    private var late: [Double]
    private var scratch: [Double]
    /// Whether an exhalation has been heard, and frames since the last one ended (0 while one
    /// goes on or before the first).
    private var afterExhalation = false
    private var pauseFrames = 0
    private var rises: RecentValues

    /// A meter for frames `frameInterval` seconds apart.
    init(frameInterval: Double) {
        shortestFrames = max(1, Int((Self.shortestPause / frameInterval).rounded()))
        settleFrames = Int((Self.settleTime / frameInterval).rounded())
        let earlyFrames = max(1, Int((Self.earlySpan / frameInterval).rounded()))
        let lateFrames = max(1, Int((Self.lateSpan / frameInterval).rounded()))
        leastHeard = max(1, Int((Self.leastHeardShare * Double(min(earlyFrames, lateFrames))).rounded(.up)))
        early = [Double](repeating: 0, count: earlyFrames)
        late = [Double](repeating: -.infinity, count: lateFrames)
        scratch = [Double](repeating: 0, count: max(earlyFrames, lateFrames))
        rises = RecentValues(capacity: Self.remembered)
    }

    /// The lower quartile of the recent pauses' rises in dB, once enough pauses were measured.
    var riseDB: Double? {
        rises.count >= Self.leastPauses ? rises.lowerQuartile : nil
    }

    mutating func reset() {
        afterExhalation = false
        pauseFrames = 0
        earlyCount = 0
        rises.removeAll()
    }

    /// Takes one final frame: its level in dB and whether it belongs to an exhalation.
    mutating func process(levelDB: Double, exhaling: Bool) {
        if exhaling {
            if pauseFrames >= shortestFrames, let rise = pauseRise() { rises.add(rise) }
            afterExhalation = true
            pauseFrames = 0
            earlyCount = 0
            return
        }
        guard afterExhalation else { return }
        let heard = levelDB >= Self.heardDBFS
        let sinceSettled = pauseFrames - settleFrames
        if heard, sinceSettled >= 0, sinceSettled < early.count {
            early[earlyCount] = levelDB
            earlyCount += 1
        }
        late[pauseFrames % late.count] = heard ? levelDB : -.infinity
        pauseFrames += 1
    }

    /// The rise across the pause just ended, when both its windows were heard enough.
    private mutating func pauseRise() -> Double? {
        var lateCount = 0
        for level in late where level > -.infinity {
            scratch[lateCount] = level
            lateCount += 1
        }
        guard earlyCount >= leastHeard, lateCount >= leastHeard else { return nil }
        let lateLevel = Self.quantile(of: &scratch, count: lateCount)
        for i in 0..<earlyCount { scratch[i] = early[i] }
        return lateLevel - Self.quantile(of: &scratch, count: earlyCount)
    }

    /// The ``quantile`` of the first `count` of `values` (sorted in place).
    private static func quantile(of values: inout [Double], count: Int) -> Double {
        sortPrefix(&values, count: count)
        return values[min(count - 1, Int(quantile * Double(count)))]
    }
}
