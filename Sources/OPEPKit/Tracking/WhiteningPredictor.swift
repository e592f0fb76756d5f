/// Second-order linear prediction of the high-passed audio, which whitens it for the tracker's
/// second view of the sound (``AudioEnergyFrontEnd``).
///
/// The prediction error `w[n] = y[n] - c₁·y[n-1] - c₂·y[n-2]` of the best predictor is the audio
/// with its spectrum flattened: a breath's noise, loudest below 500 Hz, spread over the whole band
/// (the autocorrelation method of linear prediction: J. Makhoul, "Linear prediction: a tutorial
/// review", Proc. IEEE 63(4), 1975). The energy of so narrow a noise beats by itself at the
/// flutter's rates; the energy of its prediction error much less, while the rocker's pulses,
/// which open and close the whole band at once, stay in it.
///
/// The coefficients come from the audio's autocorrelation at lags 0, 1 and 2, summed per block
/// (an energy sample's worth) and averaged with an exponential memory of `memoryTime` (default
/// 0.1 s; the predictor follows a breath's changing sound, not the rocker's cycles), and solved
/// again every 5 ms of blocks. A floor of
/// white noise 30 dB under the sound (`r₀ × 1.001`) keeps the whitening finite for a pure tone
/// or a very narrow noise. The predictor reads only past blocks: each block is filtered with the
/// coefficients made of the blocks before it.
///
/// The energy of a block's prediction error is read from the block's sums of products
/// (``errorEnergy(_:)``), which the front end makes in straight vectorised passes, rather than
/// by filtering sample by sample.
struct WhiteningPredictor {
    /// A block's sums of products of the high-passed audio `y`, for the samples `n` of the block.
    struct BlockSums {
        /// Σ y[n]².
        var energy: Float
        /// Σ y[n]·y[n-1].
        var lag1: Float
        /// Σ y[n]·y[n-2].
        var lag2: Float
        /// y[f-1]², y[f-2]² and y[f-1]·y[f-2] for the block's first sample `f`.
        var before: (Float, Float, Float)
        /// y[l]², y[l-1]² and y[l]·y[l-1] for the block's last sample `l`.
        var last: (Float, Float, Float)
    }

    /// Share of the sound's energy added as white noise to the zero-lag autocorrelation
    /// (-30 dB).
    static let whiteFloor = 1e-3
    /// How often the coefficients are solved for again, in seconds.
    static let refreshInterval = 0.005

    /// How much of the averaged autocorrelation one block leaves, `exp(-block / memoryTime)`.
    let decay: Double
    /// Blocks between solutions.
    let refreshBlocks: Int
    private var sinceRefresh = 0
    /// The predictor's coefficients `c₁`, `c₂` for the next block.
    private(set) var coefficients: (Float, Float) = (0, 0)
    private var correlations: (Double, Double, Double) = (0, 0, 0)

    /// - Parameters:
    ///   - blockDuration: the duration of one block, in seconds.
    ///   - memoryTime: the time constant of the autocorrelation's average, in seconds.
    init(blockDuration: Double, memoryTime: Double) {
        decay = exponential(-blockDuration / memoryTime)
        refreshBlocks = max(1, Int((Self.refreshInterval / blockDuration).rounded()))
    }

    mutating func reset() {
        coefficients = (0, 0)
        correlations = (0, 0, 0)
        sinceRefresh = 0
    }

    /// The energy of the prediction error over a block, with the current coefficients:
    /// `Σ w² = Σy² + c₁²·Σy[n-1]² + c₂²·Σy[n-2]² - 2c₁·Σy·y[n-1] - 2c₂·Σy·y[n-2] + 2c₁c₂·Σy[n-1]·y[n-2]`,
    /// the delayed sums being the block's own moved by one or two samples.
    func errorEnergy(_ block: BlockSums) -> Float {
        let (c1, c2) = (Double(coefficients.0), Double(coefficients.1))
        let energy = Double(block.energy), lag1 = Double(block.lag1)
        let energy1 = energy - Double(block.last.0) + Double(block.before.0)
        let energy2 = energy1 - Double(block.last.1) + Double(block.before.1)
        let lag1Delayed = lag1 - Double(block.last.2) + Double(block.before.2)
        let error = energy + c1 * c1 * energy1 + c2 * c2 * energy2
            - 2 * c1 * lag1 - 2 * c2 * Double(block.lag2) + 2 * c1 * c2 * lag1Delayed
        return Float(max(0, error))
    }

    /// Takes a block's sums into the averaged autocorrelation and, every `refreshBlocks` blocks,
    /// solves for the coefficients of the blocks to come (the normal equations of order 2).
    mutating func update(_ block: BlockSums) {
        correlations.0 = correlations.0 * decay + Double(block.energy)
        correlations.1 = correlations.1 * decay + Double(block.lag1)
        correlations.2 = correlations.2 * decay + Double(block.lag2)
        sinceRefresh += 1
        guard sinceRefresh == refreshBlocks else { return }
        sinceRefresh = 0
        let r0 = correlations.0 * (1 + Self.whiteFloor), r1 = correlations.1, r2 = correlations.2
        let determinant = r0 * r0 - r1 * r1
        guard r0 > 0, determinant > 0 else {
            coefficients = (0, 0)
            return
        }
        let inverse = 1 / determinant
        coefficients = (Float((r1 * r0 - r1 * r2) * inverse), Float((r0 * r2 - r1 * r1) * inverse))
    }
}
