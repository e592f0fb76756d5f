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
    /// The longest block ``process(_:means:count:)`` accepts.
    let maximumBlock: Int

    /// The last `length` inputs, then room for a block.
    private var line: [Float]
    private var sum: Double = 0
    private let inverseLength: Double

    /// A filter whose moving average spans `2 × halfLength + 1` samples (at least 5), for blocks
    /// of up to `maximumBlock` samples.
    init(halfLength: Int, maximumBlock: Int) {
        let half = max(2, halfLength)
        length = 2 * half + 1
        delay = half
        self.maximumBlock = max(1, maximumBlock)
        line = [Float](repeating: 0, count: length + self.maximumBlock)
        inverseLength = 1 / Double(length)
    }

    mutating func reset() {
        for i in line.indices { line[i] = 0 }
        sum = 0
    }

    /// Filters `count` (at most ``maximumBlock``) samples in place, writing to `means` the moving
    /// average subtracted from each, centred on the same sample.
    mutating func process(_ block: UnsafeMutablePointer<Float>, means: UnsafeMutablePointer<Float>, count: Int) {
        let length = length, delay = delay, inverse = inverseLength
        var total = sum
        line.withUnsafeMutableBufferPointer { line in
            for i in 0..<count {
                let index = length &+ i
                line[index] = block[i]
                total += Double(block[i]) - Double(line[index &- length])
                let mean = Float(total * inverse)
                means[i] = mean
                block[i] = line[index &- delay] - mean
            }
            for i in 0..<length { line[i] = line[i &+ count] }
        }
        sum = total
    }
}
