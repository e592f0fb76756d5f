/// How far up the recent audio reaches: an upper frequency of its spectrum, in Hz, from the
/// energies of its second and fourth differences.
///
/// The second difference `x[n] - 2x[n-1] + x[n-2]` weights a component at frequency `f` by
/// `16 sin⁴(πf/fs)` in power, the fourth difference by the square of that. Their energy ratio
/// `r` is therefore the mean of `16 sin⁴(πf/fs)` over the spectrum weighted by the second
/// difference, which leans on its top; the meter reports `fs/π · asin((r/16)^(1/4))`, the
/// frequency of a tone with that ratio. A recording through a telephone line (300-3400 Hz)
/// reads 2.6-3.0 kHz at any sample rate; a phone's own recording at 16 kHz about 4.4 kHz, at
/// 32-48 kHz 5-9 kHz even for a dark breath (measured on the random tuning corpus; docs/algorithm.md).
///
/// The band changes slowly, so the audio is read in blocks of `blockDuration` (default 40 ms) of
/// which only the first `measuredDuration` (default 10 ms) is measured: its two energies are
/// summed in eight lanes, with the last four samples of the block before, so the result does not
/// depend on the chunking; ``upperFrequency(from:to:)`` reads any span of the last `memoryTime`
/// (default 2 s). Less than an operation per sample; no allocation after set-up.
struct BandMeter {
    /// The defaults: blocks of 40 ms, the first 10 ms of each measured, 2 s of memory.
    static let blockDuration = 0.04
    static let measuredDuration = 0.01
    static let memoryTime = 2.0

    /// The second and fourth differences' energies of a block.
    struct Energies: AdditiveArithmetic {
        var second: Double
        var fourth: Double

        static let zero = Energies(second: 0, fourth: 0)
        static func + (a: Energies, b: Energies) -> Energies { Energies(second: a.second + b.second, fourth: a.fourth + b.fourth) }
        static func - (a: Energies, b: Energies) -> Energies { Energies(second: a.second - b.second, fourth: a.fourth - b.fourth) }
    }

    let sampleRate: Double
    /// Samples measured at the start of each block.
    private let measuredLength: Int
    private var blocks: AudioBlocks
    private var totals: BlockTotals<Energies>
    /// The last four samples before the next block, oldest first.
    private var history = SIMD4<Float>.zero
    /// A block's second differences, from two samples before it.
    private var differences: [Float]
    /// The blocks of the last reading and its frequency: a frame every 10 ms reads the same
    /// 40 ms blocks several times in a row.
    private var lastReading: (blocks: Range<Int>, frequency: Double?) = (0..<0, nil)

    init(
        sampleRate: Double, blockDuration: Double = BandMeter.blockDuration,
        measuredDuration: Double = BandMeter.measuredDuration, memoryTime: Double = BandMeter.memoryTime
    ) {
        self.sampleRate = sampleRate
        blocks = AudioBlocks(blockLength: max(8, Int((blockDuration * sampleRate).rounded())))
        measuredLength = min(blocks.blockLength, max(8, Int((measuredDuration * sampleRate).rounded())))
        totals = BlockTotals(blockLength: blocks.blockLength, sampleRate: sampleRate, memoryTime: memoryTime)
        differences = [Float](repeating: 0, count: measuredLength + 2)
    }

    mutating func reset() {
        blocks.reset()
        totals.reset()
        history = .zero
        lastReading = (0..<0, nil)
    }

    /// Takes the next samples of the recording.
    mutating func process(_ samples: UnsafeBufferPointer<Float>) {
        let (length, measured) = (blocks.blockLength, measuredLength)
        differences.withUnsafeMutableBufferPointer { differences in
            blocks.process(samples) { block in
                totals.append(Self.energies(block, count: measured, history: history, differences: differences.baseAddress!))
                history = SIMD4(block[length - 4], block[length - 3], block[length - 2], block[length - 1])
            }
        }
    }

    /// The upper frequency of the completed blocks within `start..<end` seconds and the memory,
    /// in Hz; nil when there are none or they are silent.
    mutating func upperFrequency(from start: Double, to end: Double) -> Double? {
        let blocks = totals.blocks(from: start, to: end)
        guard blocks != lastReading.blocks else { return lastReading.frequency }
        let energies = totals.sum(over: blocks)
        var frequency: Double?
        if !blocks.isEmpty, energies.second > 1e-20 {
            let ratio = max(0, energies.fourth) / energies.second
            frequency = sampleRate / Double.pi * arcsine(min(1, power(ratio / 16, 0.25)))
        }
        lastReading = (blocks, frequency)
        return frequency
    }

    /// A block's energies. Its second differences first, in one straight pass (the first two with
    /// the history), into `differences`; the fourth difference is the second difference of those.
    /// The squares are summed for the first four samples one by one, then eight at a time, then
    /// the rest one by one.
    private static func energies(
        _ x: UnsafePointer<Float>, count: Int, history: SIMD4<Float>, differences d: UnsafeMutablePointer<Float>
    ) -> Energies {
        @inline(__always) func sample(_ n: Int) -> Float { n >= 0 ? x[n] : history[4 + n] }
        for n in -2..<2 { d[n &+ 2] = sample(n) - 2 * sample(n - 1) + sample(n - 2) }
        for n in 2..<count { d[n &+ 2] = x[n] - 2 * x[n &- 1] + x[n &- 2] }
        @inline(__always) func fourthDifference(_ n: Int) -> Float { d[n &+ 2] - 2 * d[n &+ 1] + d[n] }
        var second = Float(0), fourth = Float(0)
        for n in 0..<4 {
            let (d0, d4) = (d[n &+ 2], fourthDifference(n))
            second += d0 * d0
            fourth += d4 * d4
        }
        let raw = UnsafeRawPointer(d), stride = MemoryLayout<Float>.stride
        var seconds = SIMD8<Float>.zero, fourths = SIMD8<Float>.zero
        var i = 4
        while i &+ 8 <= count {
            @inline(__always) func load(_ lag: Int) -> SIMD8<Float> {
                raw.loadUnaligned(fromByteOffset: (i &+ 2 &- lag) &* stride, as: SIMD8<Float>.self)
            }
            let d0 = load(0)
            let d4 = d0 - 2 * load(1) + load(2)
            seconds += d0 * d0
            fourths += d4 * d4
            i &+= 8
        }
        second += seconds.sum()
        fourth += fourths.sum()
        for n in i..<count {
            let (d0, d4) = (d[n &+ 2], fourthDifference(n))
            second += d0 * d0
            fourth += d4 * d4
        }
        guard second.isFinite, fourth.isFinite else { return .zero }
        return Energies(second: Double(second), fourth: Double(fourth))
    }
}
