/// The level of the room when nobody is exhaling, in dB relative to full scale.
///
/// Adaptive by default: a low percentile (20th) of the frame levels over the last few seconds
/// (5 s) outside exhalations, kept in a sliding histogram of 0.5 dB bins. It is learnt from the
/// quiet before breathing starts, follows a fan that is switched on, and sits inside the range of
/// fluctuating background such as music rather than at its quietest instant. The percentile's bin
/// is followed as levels enter and leave the window, so an update costs a few steps, not a scan. A fixed floor
/// (measured from a recording of the quiet room, or given) replaces the estimate altogether.
struct NoiseFloor {
    static let lowestLevel = SessionFrame.lowestLevelDB
    private static let binWidth = 0.5

    private let fixedLevel: Double?
    private let percentile: Double
    private var counts: [Int]
    private var window: [Int]
    private var windowCount = 0
    private var windowPosition = 0
    /// The bin holding the percentile, and how many levels lie in the bins below it.
    private var cursor = 0
    private var belowCursor = 0
    private(set) var level: Double?

    /// - Parameters:
    ///   - fixedLevel: a calibrated floor in dB, or nil to learn it.
    ///   - percentile: share of recent levels that lie below the floor (0-1).
    ///   - windowFrames: how many recent frames outside exhalations are considered.
    init(fixedLevel: Double?, percentile: Double, windowFrames: Int) {
        self.fixedLevel = fixedLevel
        self.percentile = percentile
        counts = [Int](repeating: 0, count: Int(-Self.lowestLevel / Self.binWidth) + 1)
        window = [Int](repeating: 0, count: max(1, windowFrames))
        level = fixedLevel
    }

    mutating func reset() {
        for i in counts.indices { counts[i] = 0 }
        windowCount = 0
        windowPosition = 0
        cursor = 0
        belowCursor = 0
        level = fixedLevel
    }

    /// Takes a frame's level; `frozen` during exhalations.
    mutating func update(_ frameLevel: Double, frozen: Bool) {
        guard fixedLevel == nil, !frozen else { return }
        let clamped = min(0, max(Self.lowestLevel, frameLevel))
        let bin = Int(((clamped - Self.lowestLevel) / Self.binWidth).rounded())
        if windowCount == window.count {
            let removed = window[windowPosition]
            counts[removed] -= 1
            if removed < cursor { belowCursor -= 1 }
        } else {
            windowCount += 1
        }
        window[windowPosition] = bin
        counts[bin] += 1
        if bin < cursor { belowCursor += 1 }
        windowPosition += 1
        if windowPosition == window.count { windowPosition = 0 }
        let rank = max(1, Int((percentile * Double(windowCount)).rounded(.up)))
        while cursor > 0, belowCursor >= rank {
            cursor -= 1
            belowCursor -= counts[cursor]
        }
        while belowCursor + counts[cursor] < rank {
            belowCursor += counts[cursor]
            cursor += 1
        }
        level = Self.lowestLevel + Double(cursor) * Self.binWidth
    }
}
