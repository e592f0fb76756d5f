/// Audio read in whole blocks of a fixed length wherever the chunks split it: whole blocks are
/// read where they lie, only a block split between chunks is gathered first. A measure taken per
/// block with SIMD lanes then sums in the same order whatever the chunking.
struct AudioBlocks {
    /// Samples per block.
    let blockLength: Int
    /// The samples of the block being filled.
    private var block: [Float]
    private var filled = 0

    init(blockLength: Int) {
        self.blockLength = max(1, blockLength)
        block = [Float](repeating: 0, count: self.blockLength)
    }

    mutating func reset() {
        filled = 0
    }

    /// Hands each block completed by `samples` to `measure`, in order.
    @inline(__always)
    mutating func process(_ samples: UnsafeBufferPointer<Float>, _ measure: (UnsafePointer<Float>) -> Void) {
        guard let base = samples.baseAddress else { return }
        var i = 0
        if filled > 0 {
            let taken = min(blockLength - filled, samples.count)
            block.withUnsafeMutableBufferPointer { block in
                for k in 0..<taken { block[filled &+ k] = base[k] }
            }
            filled += taken
            i = taken
            guard filled == blockLength else { return }
            block.withUnsafeBufferPointer { measure($0.baseAddress!) }
            filled = 0
        }
        while samples.count - i >= blockLength {
            measure(base + i)
            i += blockLength
        }
        let rest = samples.count - i
        guard rest > 0 else { return }
        block.withUnsafeMutableBufferPointer { block in
            for k in 0..<rest { block[k] = base[i &+ k] }
        }
        filled = rest
    }
}

/// Per-block measures of the recent audio, summed cumulatively in a ring indexed by block number
/// (a power of two long), so that the sum over any span of whole blocks within the memory takes
/// two reads.
struct BlockTotals<Value: AdditiveArithmetic> {
    let blockLength: Int
    let sampleRate: Double
    private var totals: [Value]
    private let mask: Int
    private var total = Value.zero
    /// Blocks completed since the start.
    private(set) var blocksDone = 0

    init(blockLength: Int, sampleRate: Double, memoryTime: Double) {
        self.blockLength = blockLength
        self.sampleRate = sampleRate
        let blocks = max(2, Int((memoryTime * sampleRate).rounded(.up)) / blockLength + 2)
        let size = ringLength(atLeast: blocks)
        totals = [Value](repeating: .zero, count: size)
        mask = size - 1
    }

    mutating func reset() {
        blocksDone = 0
        total = .zero
        for i in totals.indices { totals[i] = .zero }
    }

    mutating func append(_ value: Value) {
        total += value
        totals[blocksDone & mask] = total
        blocksDone += 1
    }

    /// The sum over the completed blocks that lie within `start..<end` seconds of the recording
    /// and within the memory, and how many blocks that is.
    func sum(from start: Double, to end: Double) -> (value: Value, blocks: Int) {
        let blocks = blocks(from: start, to: end)
        return (sum(over: blocks), blocks.count)
    }

    /// The numbers of the completed blocks that lie within `start..<end` seconds of the recording
    /// and within the memory (empty when none do).
    func blocks(from start: Double, to end: Double) -> Range<Int> {
        let first = max(0, Self.ceiling(start * sampleRate / Double(blockLength)), blocksDone - totals.count + 1)
        let last = min(blocksDone, Self.floor(end * sampleRate / Double(blockLength)))
        return first < last ? first..<last : 0..<0
    }

    /// The sum over `blocks`, as ``blocks(from:to:)`` gave them (zero when empty). The same blocks
    /// give the same sum for as long as they are within the memory.
    func sum(over blocks: Range<Int>) -> Value {
        guard !blocks.isEmpty else { return .zero }
        let before = blocks.lowerBound > 0 ? totals[(blocks.lowerBound - 1) & mask] : .zero
        return totals[(blocks.upperBound - 1) & mask] - before
    }

    /// The largest integer not above `x`, and the smallest not below it, for block numbers
    /// (well within `Int`), without a call into the C library per frame.
    @inline(__always) private static func floor(_ x: Double) -> Int {
        let truncated = Int(max(min(x, 1e15), -1e15))
        return Double(truncated) > x ? truncated - 1 : truncated
    }

    @inline(__always) private static func ceiling(_ x: Double) -> Int {
        let truncated = Int(max(min(x, 1e15), -1e15))
        return Double(truncated) < x ? truncated + 1 : truncated
    }
}
