/// How much of the recent audio was clipped: the share of samples held at a block's peak.
///
/// A clipped waveform is cut flat at the converter's or the amplifier's limit, which need not be
/// full scale (an amplifier clipping before a gain control, or a file normalised afterwards). So
/// the meter does not look for full scale: in each block of `blockDuration` (default 10 ms) it
/// counts the samples within `tolerance` (default 0.1 %) of the block's own peak magnitude. In
/// noise, music or speech the peak is a lone sample (even a pure tone spends only about 3 % of
/// its time that close to its peak); a breath clipped at its own RMS level spends about a third
/// of its samples there. A coarsely quantised recording repeats its peak value by itself when
/// its peak is only a few steps high (quiet 8-bit sound), so a block whose peak lies under
/// `fewestSteps` (default 16) of its own quantisation steps counts as clipped only where its
/// samples pile up at the peak: more than `pileUp` (default 2) times as many as one step below
/// it, and the peak at least two steps high. A noise thins out towards its peak (at 4 steps high,
/// about a fifth as many samples at the peak as one step below), and so does a pure tone's
/// rounding nearly (1.2-1.3 times), while a breath clipped and then turned down to a few 8-bit
/// steps holds its flat tops at one value and a handful of samples just under them. The step is
/// read from the block by ``QuantisationStep``, among the samples not held at the peak (none
/// when all are, as in a square wave). At 16 steps a noise's peak value holds under 0.4 % of the
/// block. Where the clipping lies does not matter: an amplifier that clips before the level is
/// turned down leaves its flat tops at -46 dBFS as well (before, a fixed -30 dBFS floor stood
/// here, and such a recording read unclipped; before the pile-up, an 8-bit one clipped and
/// turned down to a few steps read unclipped too).
///
/// ``clippedShare(from:to:)`` reads the share over any span of the last `memoryTime` (default
/// 2 s) by the blocks' sample positions, so the answer does not depend on how the audio was
/// split into chunks.
struct ClipMeter {
    /// The defaults: blocks of 10 ms, samples within 0.1 % of the peak, peaks of 16 quantisation
    /// steps and more (or, under them, more than twice as many samples at the peak as one step
    /// below, and peaks of two steps and more), 2 s of memory.
    static let blockDuration = 0.01
    static let tolerance = 0.001
    static let fewestSteps = 16.0
    static let pileUp = 2.0
    static let fewestPileSteps: Float = 2
    static let memoryTime = 2.0

    /// Samples per block.
    var blockLength: Int { blocks.blockLength }
    /// The sample rate, in Hz.
    let sampleRate: Double
    private let tolerance: Float
    private let fewestSteps: Float
    private let pileUp: Float
    private var blocks: AudioBlocks
    /// Clipped samples per completed block.
    private var totals: BlockTotals<Int>

    /// - Parameters:
    ///   - sampleRate: the input's sample rate, in Hz.
    ///   - blockDuration: the length of the blocks whose peak is compared, in seconds.
    ///   - tolerance: how close to the peak a sample counts as held there, as a share of the peak.
    ///   - fewestSteps: the lowest block peak that is clipping by its count alone, in the block's
    ///     quantisation steps.
    ///   - pileUp: under `fewestSteps`, how many times as many samples must lie at the peak as one
    ///     step below it.
    ///   - memoryTime: how far back ``clippedShare(from:to:)`` can read, in seconds.
    init(
        sampleRate: Double, blockDuration: Double = ClipMeter.blockDuration, tolerance: Double = ClipMeter.tolerance,
        fewestSteps: Double = ClipMeter.fewestSteps, pileUp: Double = ClipMeter.pileUp, memoryTime: Double = ClipMeter.memoryTime
    ) {
        self.sampleRate = sampleRate
        blocks = AudioBlocks(blockLength: Int((blockDuration * sampleRate).rounded()))
        self.tolerance = Float(tolerance)
        self.fewestSteps = Float(fewestSteps)
        self.pileUp = Float(pileUp)
        totals = BlockTotals(blockLength: blocks.blockLength, sampleRate: sampleRate, memoryTime: memoryTime)
    }

    mutating func reset() {
        blocks.reset()
        totals.reset()
    }

    /// Takes the next samples of the recording.
    mutating func process(_ samples: UnsafeBufferPointer<Float>) {
        let (length, tolerance, fewestSteps, pileUp) = (blockLength, tolerance, fewestSteps, pileUp)
        blocks.process(samples) { block in
            totals.append(Int(Self.heldAtPeak(block, count: length, tolerance: tolerance, fewestSteps: fewestSteps, pileUp: pileUp)))
        }
    }

    /// The share of samples clipped in the completed blocks that lie within `start..<end`
    /// seconds of the recording and within the meter's memory; 0 when there are none.
    func clippedShare(from start: Double, to end: Double) -> Double {
        let (clipped, count) = totals.sum(from: start, to: end)
        return count > 0 ? Double(clipped) / Double(count * blockLength) : 0
    }

    /// How many of a block's samples lie within the tolerance of its peak magnitude, eight lanes
    /// at a time (0 when the peak is under `fewestSteps` quantisation steps and they do not pile
    /// up there, ``pileUp(_:count:peak:step:held:tolerance:ratio:)``). Magnitudes are compared as
    /// the integers of their bits (sign cleared), which order the same way as the non-negative
    /// floats they are.
    private static func heldAtPeak(
        _ x: UnsafePointer<Float>, count: Int, tolerance: Float, fewestSteps: Float, pileUp ratio: Float
    ) -> Int32 {
        let raw = UnsafeRawPointer(x), stride = MemoryLayout<Float>.stride
        let magnitude = SIMD8<Int32>(repeating: Int32.max)
        var peaks = SIMD8<Int32>.zero
        var i = 0
        while i &+ 8 <= count {
            let v = raw.loadUnaligned(fromByteOffset: i &* stride, as: SIMD8<Int32>.self) & magnitude
            peaks.replace(with: v, where: v .> peaks)
            i &+= 8
        }
        var peak = Float(bitPattern: UInt32(peaks.max()))
        for k in i..<count { peak = max(peak, abs(x[k])) }
        guard peak.isFinite, peak > 0 else { return 0 }
        let threshold = peak * (1 - tolerance)
        let level = SIMD8<Int32>(repeating: Int32(bitPattern: threshold.bitPattern))
        var held = SIMD8<Int32>.zero
        i = 0
        while i &+ 8 <= count {
            let v = raw.loadUnaligned(fromByteOffset: i &* stride, as: SIMD8<Int32>.self) & magnitude
            held.replace(with: held &+ 1, where: v .>= level)
            i &+= 8
        }
        var total = held.wrappedSum()
        for k in i..<count where abs(x[k]) >= threshold { total &+= 1 }
        guard total > 1, let step = QuantisationStep.smallest(x, count: count, below: threshold) else { return total }
        guard peak < fewestSteps * step else { return total }
        return pileUp(x, count: count, peak: peak, step: step, held: total, tolerance: tolerance, ratio: ratio) ? total : 0
    }

    /// Whether the `held` samples at a coarsely rounded block's `peak` are more than `ratio` times
    /// those within the tolerance of one `step` below it, with the peak at least
    /// ``fewestPileSteps`` steps high. Runs only for blocks a few steps high.
    private static func pileUp(
        _ x: UnsafePointer<Float>, count: Int, peak: Float, step: Float, held: Int32, tolerance: Float, ratio: Float
    ) -> Bool {
        guard peak >= fewestPileSteps * step else { return false }
        let below = peak - step, width = peak * tolerance
        var belowCount = 0
        for k in 0..<count where abs(abs(x[k]) - below) <= width { belowCount += 1 }
        return Float(held) > ratio * Float(belowCount)
    }
}
