/// Lip and mouth clicks taken out of an energy signal before it is smoothed: a sample more than
/// `rise` (default 10 dB) above the median of itself and the samples of the last `2 × longestClick`
/// (default 3 ms) before it is replaced by that median.
///
/// A click is a few milliseconds of sound up to 20 dB above the breath. On the envelope it is one
/// to three samples that leap above those before them, and in a span of 0.25 s it carries more of
/// the envelope's variance than the flutter, so the span's correlation at the flutter's period
/// falls (0.1-0.3 instead of 0.8) until the click has left it. The median filter is the classic
/// remedy for impulse noise (J. W. Tukey, "Exploratory data analysis", 1977); here it looks only
/// back, so the envelope is not delayed, and a sample is replaced only when it is an outlier: a
/// breath's onset rises over tens of milliseconds and passes unchanged, and a flutter's pulses
/// come back within a period (below). A sound that leaps up from silence within one sample loses
/// its first `h` samples (one `longestClick`) at most. The first `2h` samples, with nothing before
/// them, pass as they are.
///
/// A click is kept where a sample as loud (within `rise` of it) came before it within
/// `recurrence` (the longest flutter period), beyond its own neighbourhood: a train of them is a
/// rocker's clicks or a buzz's edges, the flutter itself, and only the first of the train is lost.
/// The rule reads only the samples themselves, so it holds whatever the blocks.
///
/// The test costs one comparison per sample before: a sample exceeds `rise` times the median of
/// its `2h + 1` values exactly when fewer than `h` of the `2h` before it reach `1 / rise` of it.
/// The median and the look further back are taken only then.
struct ClickSuppressor {
    /// The defaults: clicks of up to 3 ms, 10 dB above their neighbourhood's median.
    static let longestClick = 0.003
    static let riseDB = 10.0

    /// Half the samples before the one tested, `h`; 0 passes the signal through.
    let halfWidth: Int
    /// How many samples back a click as loud keeps a click.
    let recurrence: Int
    /// The longest block ``process(_:count:)`` accepts.
    let maximumBlock: Int
    /// `1 / rise` as a power ratio.
    private let fraction: Float
    /// Inputs kept from one block to the next: the longer of `2h` and `recurrence`.
    private let memory: Int
    /// The last `memory` inputs, then room for a block.
    private var line: [Float]
    /// Room for one neighbourhood, sorted when a sample is replaced.
    private var window: [Float]
    /// Samples processed, up to `2h`.
    private var processed = 0

    /// - Parameters:
    ///   - sampleRate: the energy signal's rate, in Hz.
    ///   - longestClick: the longest burst taken for a click, in seconds; 0 turns the stage off.
    ///   - riseDB: how far above its neighbourhood's median a sample is a click, in dB.
    ///   - recurrence: how far back a click as loud keeps a click, in seconds.
    ///   - maximumBlock: the longest block that will be processed at once.
    init(
        sampleRate: Double, longestClick: Double = ClickSuppressor.longestClick, riseDB: Double = ClickSuppressor.riseDB,
        recurrence: Double, maximumBlock: Int
    ) {
        halfWidth = longestClick > 0 ? max(1, Int((longestClick * sampleRate).rounded(.up))) : 0
        self.recurrence = Int((recurrence * sampleRate).rounded(.up))
        self.maximumBlock = max(1, maximumBlock)
        fraction = Float(power(10, -riseDB / 10))
        memory = max(2 * halfWidth, self.recurrence)
        line = [Float](repeating: 0, count: memory + self.maximumBlock)
        window = [Float](repeating: 0, count: 2 * halfWidth + 1)
    }

    mutating func reset() {
        for i in line.indices { line[i] = 0 }
        processed = 0
    }

    /// Filters `count` (at most ``maximumBlock``) samples in place.
    mutating func process(_ block: UnsafeMutablePointer<Float>, count: Int) {
        let h = halfWidth, history = 2 * h, fraction = fraction, memory = memory, earliest = memory - recurrence
        guard h > 0 else { return }
        let first = processed
        line.withUnsafeMutableBufferPointer { line in
            window.withUnsafeMutableBufferPointer { window in
                for i in 0..<count { line[memory &+ i] = block[i] }
                for i in 0..<count where first &+ i >= history {
                    let newest = memory &+ i, floor = line[newest] * fraction
                    var reaching = 0
                    for k in (newest &- history)..<newest where line[k] >= floor { reaching &+= 1 }
                    guard reaching < h else { continue }
                    var k = earliest &+ i
                    while k < newest &- history, line[k] < floor { k &+= 1 }
                    guard k >= newest &- history else { continue }
                    for k in 0...history { window[k] = line[newest &- history &+ k] }
                    block[i] = Self.median(window)
                }
                for i in 0..<memory { line[i] = line[i &+ count] }
            }
        }
        processed = min(history, first &+ count)
    }

    /// The median of an odd number of values, sorting them in place.
    private static func median(_ values: UnsafeMutableBufferPointer<Float>) -> Float {
        var sorted = values
        sortPrefix(&sorted, count: sorted.count)
        return sorted[sorted.count / 2]
    }
}
