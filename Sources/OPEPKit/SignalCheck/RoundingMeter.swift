/// The quantisation step of the recent audio: how coarsely the recording was rounded, read from
/// the samples themselves.
///
/// A recording rounded to steps of `q` (8-bit sound: 1/127 of full scale) carries a rounding
/// noise of power `q² / 12` wherever a sound goes on, and none between sounds when the room lies
/// under half a step (rounded to zero there). The room's level, read between sounds, does not
/// show it, so a breath a few steps loud would read as clear above a silent room while its own
/// rounding masks the flutter. The step is read by ``QuantisationStep``: for rounded sound
/// exactly one step (or a multiple, never less). Sound never rounded (float, or rounded and then
/// filtered, as by a lossy codec) reads the closest two of its thousands of samples, about 70 dB
/// under its level: a noise that small changes no verdict.
///
/// The audio is read in blocks of `blockDuration` (default 40 ms) of which the first
/// `measuredDuration` (default 10 ms) is measured; ``step`` is the smallest
/// over the last `memoryTime` (default 1 s) of blocks that held a non-zero sample (a sound
/// rounded to 8 bits leaves digital silence between breaths, which says nothing of the step), so
/// the answer does not depend on how the audio was split into chunks. Less than an operation per
/// sample; no allocation after set-up.
struct RoundingMeter {
    /// The defaults: blocks of 40 ms, the first 10 ms of each measured, 1 s of memory.
    static let blockDuration = 0.04
    static let measuredDuration = 0.01
    static let memoryTime = 1.0

    /// Samples measured at the start of each block.
    private let measuredLength: Int
    private var blocks: AudioBlocks
    /// The smallest step of each recent block that had one, a ring (infinity where none yet).
    private var steps: [Float]
    private var blocksDone = 0
    /// The smallest of `steps`, kept as each block comes in.
    private var smallest = Float.infinity

    init(
        sampleRate: Double, blockDuration: Double = RoundingMeter.blockDuration,
        measuredDuration: Double = RoundingMeter.measuredDuration, memoryTime: Double = RoundingMeter.memoryTime
    ) {
        blocks = AudioBlocks(blockLength: max(9, Int((blockDuration * sampleRate).rounded())))
        measuredLength = min(blocks.blockLength, max(9, Int((measuredDuration * sampleRate).rounded())))
        let blockTime = Double(blocks.blockLength) / sampleRate
        steps = [Float](repeating: .infinity, count: max(1, Int((memoryTime / blockTime).rounded())))
    }

    mutating func reset() {
        blocks.reset()
        for i in steps.indices { steps[i] = .infinity }
        blocksDone = 0
        smallest = .infinity
    }

    /// Takes the next samples of the recording.
    mutating func process(_ samples: UnsafeBufferPointer<Float>) {
        let measured = measuredLength
        blocks.process(samples) { block in
            guard let step = QuantisationStep.smallest(block, count: measured, below: .infinity), step.isFinite else { return }
            steps[blocksDone % steps.count] = step
            blocksDone += 1
            smallest = steps.min() ?? .infinity
        }
    }

    /// The quantisation step of the last `memoryTime` of audio that held a non-zero sample, in
    /// full-scale units (digital silence between sounds tells nothing); nil before any.
    var step: Float? { smallest.isFinite ? smallest : nil }
}
