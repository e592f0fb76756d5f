/// Squares the high-passed signal and averages it over contiguous blocks, turning audio into the
/// study's "audio energy" signal near 1 kHz (seed 000 section 3 steps 4-5).
///
/// This is the single reduction of the pipeline: the seed lists a downsampling "by 45" both before
/// the high-pass and in the block average, but two reductions by 45 would leave ~22 Hz sampling,
/// below the Nyquist rate of a 40 Hz flutter. The consistent reading, and the one used here, is
/// that the high-pass and squaring run at the audio rate and the block average of 45 samples at
/// 44.1 kHz *is* the reduction to ~980 Hz. The block length is derived from the sample rate
/// (`round(sampleRate / energyRate)`), so 8 kHz uses blocks of 8 and 96 kHz blocks of 98.
struct EnergyDecimator {
    /// Input samples per energy sample.
    let blockLength: Int
    private let inverseBlockLength: Float
    private var accumulator: Float = 0
    private var count = 0

    init(blockLength: Int) {
        self.blockLength = blockLength
        inverseBlockLength = 1 / Float(blockLength)
    }

    mutating func reset() {
        accumulator = 0
        count = 0
    }

    /// Adds one high-passed sample; returns the block's mean square when the block completes.
    @inline(__always)
    mutating func process(_ y: Float) -> Float? {
        accumulator += y * y
        count &+= 1
        guard count == blockLength else { return nil }
        let energy = accumulator * inverseBlockLength
        accumulator = 0
        count = 0
        return energy
    }
}
