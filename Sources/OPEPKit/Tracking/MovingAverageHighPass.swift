/// High-pass filter formed by subtracting a centred moving average from the signal.
///
/// The tracker runs it on the energy envelope, one longest flutter period long, to remove slow
/// swells such as an inhalation's rise and fall: a ramp correlates with itself at every lag, a
/// flutter does not need it, and a boxcar of one period has its nulls exactly at the band's
/// lowest frequency and its multiples. (The audio's own high-pass, the study's "formant
/// removal", is the same filter in fixed point inside ``AudioEnergyFrontEnd``.)
///
/// `y[n] = x[n - D] - mean(x[n - L + 1 ... n])` with an odd length `L` and `D = (L - 1) / 2`,
/// so the moving average is centred on the sample it is subtracted from: linear phase, a delay
/// of `D` samples and a double zero at DC. The moving average's first null sits at
/// `sampleRate / L`. The running sum is kept in `Double`, so hours of audio do not accumulate
/// rounding drift.
struct MovingAverageHighPass {
    /// Moving-average length in samples (odd, at least 5).
    let length: Int
    /// Delay of the filter in samples.
    let delay: Int

    private var history: [Float]
    private let mask: Int
    private var position = 0
    private var sum: Double = 0
    private let inverseLength: Double
    /// The moving average subtracted from the latest output, centred on the same sample.
    private(set) var mean: Float = 0

    /// A filter whose moving average spans `2 × halfLength + 1` samples (at least 5).
    init(halfLength: Int) {
        let half = max(2, halfLength)
        length = 2 * half + 1
        delay = half
        var capacity = 8
        while capacity < length + 1 { capacity <<= 1 }
        history = [Float](repeating: 0, count: capacity)
        mask = capacity - 1
        inverseLength = 1 / Double(length)
    }

    mutating func reset() {
        for i in history.indices { history[i] = 0 }
        position = 0
        sum = 0
        mean = 0
    }

    /// Filters one sample.
    @inline(__always)
    mutating func process(_ x: Float) -> Float {
        let p = position
        sum += Double(x) - Double(history[(p &- length) & mask])
        history[p & mask] = x
        position = p &+ 1
        mean = Float(sum * inverseLength)
        return history[(p &- delay) & mask] - mean
    }
}
