import Foundation

/// Gaussian low-pass of the energy signal (seed 000 section 3 step 6).
///
/// A symmetric FIR kernel `exp(-k² / 2σ²)` for `|k| <= ceil(3σ)`, normalised to unit sum, so the
/// output lags the input by exactly `halfWidth` samples. σ is a fraction of the shortest flutter
/// period (default 0.2 × 1/40 Hz = 5 ms): narrow enough to keep a 40 Hz flutter (gain 0.45) and
/// wide enough to remove the voice pitch of speech (gain below 0.01 above 100 Hz).
///
/// The kernel is zero-padded to whole groups of eight taps and summed eight lanes at a time.
struct GaussianSmoother {
    /// Samples of delay, the kernel's half width.
    let halfWidth: Int
    private let taps: Int
    private let kernel: [Float]
    private var history: [Float]
    private var position = 0

    /// - Parameter sigma: standard deviation in samples (at least 0.5).
    init(sigma: Double) {
        let s = max(0.5, sigma)
        halfWidth = Int((3 * s).rounded(.up))
        var weights = (-halfWidth...halfWidth).map { k in Float(exp(-Double(k * k) / (2 * s * s))) }
        let total = weights.reduce(0, +)
        for i in weights.indices { weights[i] /= total }
        taps = weights.count
        let padded = (taps + 7) / 8 * 8
        kernel = weights + [Float](repeating: 0, count: padded - taps)
        history = [Float](repeating: 0, count: taps + padded)
    }

    mutating func reset() {
        for i in history.indices { history[i] = 0 }
        position = 0
    }

    /// Smooths one sample; the result describes the input `halfWidth` samples ago.
    @inline(__always)
    mutating func process(_ x: Float) -> Float {
        let n = taps
        history[position] = x
        history[position + n] = x
        position += 1
        if position == n { position = 0 }
        let start = position
        return kernel.withUnsafeBytes { k in
            history.withUnsafeBytes { h in
                let stride = MemoryLayout<Float>.stride
                var lanes = SIMD8<Float>.zero
                var offset = 0
                while offset < k.count {
                    lanes += k.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                        * h.loadUnaligned(fromByteOffset: start * stride + offset, as: SIMD8<Float>.self)
                    offset += 8 * stride
                }
                return lanes.sum()
            }
        }
    }
}
