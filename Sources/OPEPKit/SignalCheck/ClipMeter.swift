/// How much of the recent audio was clipped: the share of samples held at a block's peak.
///
/// A clipped waveform is cut flat at the converter's or the amplifier's limit, which need not be
/// full scale (an amplifier clipping before a gain control, or a file normalised afterwards). So
/// the meter does not look for full scale: in each block of `blockDuration` (default 10 ms) it
/// counts the samples within `tolerance` (default 0.1 %) of the block's own peak magnitude. In
/// noise, music or speech the peak is a lone sample (even a pure tone spends only about 3 % of
/// its time that close to its peak); a breath clipped at its own RMS level spends about a third
/// of its samples there. Blocks whose peak lies below `quietestPeakDBFS` (default
/// -30 dBFS) count as unclipped: a quiet, coarsely quantised recording (8-bit) would otherwise
/// repeat its peak value by itself.
///
/// ``clippedShare(from:to:)`` reads the share over any span of the last `memoryTime` (default
/// 2 s) by the blocks' sample positions, so the answer does not depend on how the audio was
/// split into chunks.
struct ClipMeter {
    /// Samples per block.
    let blockLength: Int
    /// The sample rate, in Hz.
    let sampleRate: Double
    private let tolerance: Float
    private let quietestPeak: Float
    /// The samples of the block being filled.
    private var block: [Float]
    private var filled = 0
    /// Clipped samples per completed block, in a ring indexed by block number.
    private var counts: [Int32]
    /// Blocks completed since the start.
    private(set) var blocksDone = 0

    /// - Parameters:
    ///   - sampleRate: the input's sample rate, in Hz.
    ///   - blockDuration: the length of the blocks whose peak is compared, in seconds.
    ///   - tolerance: how close to the peak a sample counts as held there, as a share of the peak.
    ///   - quietestPeakDBFS: the lowest block peak that can be clipping, in dB full scale.
    ///   - memoryTime: how far back ``clippedShare(from:to:)`` can read, in seconds.
    init(sampleRate: Double, blockDuration: Double, tolerance: Double, quietestPeakDBFS: Double, memoryTime: Double) {
        self.sampleRate = sampleRate
        blockLength = max(1, Int((blockDuration * sampleRate).rounded()))
        self.tolerance = Float(tolerance)
        quietestPeak = Float(power(10, quietestPeakDBFS / 20))
        block = [Float](repeating: 0, count: blockLength)
        counts = [Int32](repeating: 0, count: max(2, Int((memoryTime * sampleRate).rounded(.up)) / blockLength + 2))
    }

    mutating func reset() {
        filled = 0
        blocksDone = 0
        for i in counts.indices { counts[i] = 0 }
    }

    /// Takes the next samples of the recording.
    mutating func process(_ samples: UnsafeBufferPointer<Float>) {
        guard let base = samples.baseAddress else { return }
        var i = 0
        while i < samples.count {
            let taken = min(blockLength - filled, samples.count - i)
            block.withUnsafeMutableBufferPointer { block in
                for k in 0..<taken { block[filled &+ k] = base[i &+ k] }
            }
            filled += taken
            i += taken
            if filled == blockLength {
                counts[blocksDone % counts.count] = countHeldAtPeak()
                blocksDone += 1
                filled = 0
            }
        }
    }

    /// The share of samples clipped in the completed blocks that lie within `start..<end`
    /// seconds of the recording and within the meter's memory; 0 when there are none.
    func clippedShare(from start: Double, to end: Double) -> Double {
        let first = max(0, Int((start * sampleRate / Double(blockLength)).rounded(.up)), blocksDone - counts.count + 1)
        let last = min(blocksDone, Int((end * sampleRate / Double(blockLength)).rounded(.down)))
        guard first < last else { return 0 }
        var clipped = 0
        for index in first..<last { clipped += Int(counts[index % counts.count]) }
        return Double(clipped) / Double((last - first) * blockLength)
    }

    /// How many of the full block's samples lie within the tolerance of its peak magnitude.
    private func countHeldAtPeak() -> Int32 {
        block.withUnsafeBufferPointer { block in
            var peak: Float = 0
            for x in block { peak = max(peak, abs(x)) }
            guard peak.isFinite, peak >= quietestPeak else { return 0 }
            let level = peak * (1 - tolerance)
            var count: Int32 = 0
            for x in block where abs(x) >= level { count &+= 1 }
            return count
        }
    }
}
