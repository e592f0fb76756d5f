/// The loudest stretch of a sound: from the first to the last of its frames that lie within a
/// margin of its peak level.
///
/// A huff cough is one forceful burst, loudest at once and then fading, so its loudest stretch is
/// the huff itself; running speech, music or a series of coughs keep coming back near their
/// loudest, so their stretch spans the words or the bars (a sound whose level sways 6 dB between
/// syllables). The exhalation detector classifies a sound without flutter by this stretch: a
/// huff made while a television talks on stands out of it by its level and is found; a sentence
/// without a pause is not one long huff.
///
/// Keeps the levels of the newest `reach` frames in a ring allocated up front; ``record(_:)``
/// costs one store, ``stretch(from:through:marginDB:)`` and ``peak(from:through:)`` a scan of the
/// frames asked about.
struct LoudestStretch {
    /// How many of the newest frames can be asked about.
    let reach: Int
    private var levels: [Double]
    private let mask: Int
    /// The index of the next frame recorded.
    private(set) var count = 0

    init(reach: Int) {
        self.reach = max(1, reach)
        let length = ringLength(atLeast: self.reach)
        levels = [Double](repeating: 0, count: length)
        mask = length - 1
    }

    mutating func reset() { count = 0 }

    /// Records the next frame's level in dB.
    mutating func record(_ levelDB: Double) {
        levels[count & mask] = levelDB
        count += 1
    }

    /// The loudest level among frames `first...last` (those held), in dB; -infinity when none is.
    func peak(from first: Int, through last: Int) -> Double {
        let start = max(first, count - reach, 0), end = min(last, count - 1)
        guard start <= end else { return -.infinity }
        var peak = -Double.infinity
        for index in start...end { peak = max(peak, levels[index & mask]) }
        return peak
    }

    /// The first frame of the run of frames at or above `levelDB` that ends at frame `last`, going
    /// back no further than frame `first` (nor than the frames held); `last` itself when the frame
    /// before it lies below.
    func runStart(endingAt last: Int, notBefore first: Int, atLeast levelDB: Double) -> Int {
        let earliest = max(first, count - reach, 0)
        var start = last
        while start > earliest, levels[(start - 1) & mask] >= levelDB { start -= 1 }
        return start
    }

    /// The loudest stretch of frames `first...last` (those not recorded yet or older than `reach`
    /// frames left out): from the first to the last frame within `marginDB` of the peak among
    /// them; nil when no frame asked about is held.
    func stretch(from first: Int, through last: Int, marginDB: Double) -> ClosedRange<Int>? {
        let start = max(first, count - reach, 0), end = min(last, count - 1)
        guard start <= end else { return nil }
        let threshold = peak(from: start, through: end) - marginDB
        var from = start, to = end
        while levels[from & mask] < threshold { from += 1 }
        while levels[to & mask] < threshold { to -= 1 }
        return from...to
    }
}
