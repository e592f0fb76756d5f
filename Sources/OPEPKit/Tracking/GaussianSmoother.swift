
/// Gaussian low-pass of the energy signal (seed 000 section 3 step 6).
///
/// A symmetric FIR kernel `exp(-k² / 2σ²)` for `|k| <= ceil(3σ)`, normalised to unit sum, so the
/// output lags the input by exactly `halfWidth` samples. σ is a fraction of the shortest flutter
/// period (default 0.2 × 1/40 Hz = 5 ms): narrow enough to keep a 40 Hz flutter (gain 0.45) and
/// wide enough to remove the voice pitch of speech (gain below 0.01 above 100 Hz).
///
/// Blocks are filtered in place. Each output sums its taps in the same order whatever the block
/// boundaries.
struct GaussianSmoother {
    /// Samples of delay, the kernel's half width.
    let halfWidth: Int
    /// The longest block ``process(_:count:)`` accepts.
    let maximumBlock: Int
    private let kernel: [Float]
    /// The last `kernel.count - 1` inputs, then room for a block.
    private var line: [Float]

    /// - Parameters:
    ///   - sigma: standard deviation in samples (at least 0.5).
    ///   - maximumBlock: the longest block that will be processed at once.
    init(sigma: Double, maximumBlock: Int) {
        let s = max(0.5, sigma)
        halfWidth = Int((3 * s).rounded(.up))
        var weights = (-halfWidth...halfWidth).map { k in Float(exponential(-Double(k * k) / (2 * s * s))) }
        let total = weights.reduce(0, +)
        for i in weights.indices { weights[i] /= total }
        kernel = weights
        self.maximumBlock = max(1, maximumBlock)
        line = [Float](repeating: 0, count: weights.count - 1 + self.maximumBlock)
    }

    mutating func reset() {
        for i in line.indices { line[i] = 0 }
    }

    /// Smooths `count` (at most ``maximumBlock``) samples in place; each result describes the
    /// input `halfWidth` samples before it.
    ///
    /// Eight outputs at a time accumulate in a register, the centre tap first and then each pair
    /// of taps symmetric about it (one multiplication for both), in the same order as the
    /// remaining outputs one by one: the same sums whatever the block boundaries.
    mutating func process(_ block: UnsafeMutablePointer<Float>, count: Int) {
        let history = kernel.count - 1
        kernel.withUnsafeBufferPointer { kernel in
            line.withUnsafeMutableBufferPointer { line in
                guard let taps = kernel.baseAddress, let input = line.baseAddress else { return }
                for i in 0..<count { input[history &+ i] = block[i] }
                let raw = UnsafeRawPointer(input), stride = MemoryLayout<Float>.stride
                var i = 0
                let half = halfWidth, last = history
                while i &+ 8 <= count {
                    var sum = taps[half] * raw.loadUnaligned(fromByteOffset: (half &+ i) &* stride, as: SIMD8<Float>.self)
                    for k in 0..<half {
                        sum += taps[k] * (raw.loadUnaligned(fromByteOffset: (k &+ i) &* stride, as: SIMD8<Float>.self)
                            + raw.loadUnaligned(fromByteOffset: (last &- k &+ i) &* stride, as: SIMD8<Float>.self))
                    }
                    UnsafeMutableRawPointer(block + i).storeBytes(of: sum, as: SIMD8<Float>.self)
                    i &+= 8
                }
                while i < count {
                    var sum = taps[half] * input[half &+ i]
                    for k in 0..<half { sum += taps[k] * (input[k &+ i] + input[last &- k &+ i]) }
                    block[i] = sum
                    i &+= 1
                }
                for i in 0..<history { input[i] = input[i &+ count] }
            }
        }
    }
}
