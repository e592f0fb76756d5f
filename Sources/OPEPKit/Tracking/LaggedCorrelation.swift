/// The Pearson correlation of a signal with itself shifted by a lag, from the lagged product and
/// the two segments' sums, as ``PeriodSearch`` (at the envelope's rate) and ``PeriodEvidence``
/// (on every third sample) compute it.
enum LaggedCorrelation {
    /// The fewest pairs of samples a lagged correlation is computed over; with fewer it reads -1.
    static let fewestPairs = 4

    /// `Σ x[i] · x[i + lag]` for `i < count`, sixteen lanes at a time, then eight, then one.
    @inline(__always)
    static func dot(_ x: UnsafePointer<Float>, lag: Int, count: Int) -> Float {
        let raw = UnsafeRawPointer(x), shifted = UnsafeRawPointer(x + lag)
        let stride = MemoryLayout<Float>.stride
        var low = SIMD8<Float>.zero, high = SIMD8<Float>.zero
        var i = 0
        while i &+ 16 <= count {
            low += raw.loadUnaligned(fromByteOffset: i &* stride, as: SIMD8<Float>.self)
                * shifted.loadUnaligned(fromByteOffset: i &* stride, as: SIMD8<Float>.self)
            high += raw.loadUnaligned(fromByteOffset: (i &+ 8) &* stride, as: SIMD8<Float>.self)
                * shifted.loadUnaligned(fromByteOffset: (i &+ 8) &* stride, as: SIMD8<Float>.self)
            i &+= 16
        }
        if i &+ 8 <= count {
            low += raw.loadUnaligned(fromByteOffset: i &* stride, as: SIMD8<Float>.self)
                * shifted.loadUnaligned(fromByteOffset: i &* stride, as: SIMD8<Float>.self)
            i &+= 8
        }
        var total = (low + high).sum()
        while i < count {
            total += x[i] * x[i &+ lag]
            i &+= 1
        }
        return total
    }

    /// The correlation of segments A and B of `count` samples each from their lagged product
    /// `Σ a·b` and their sums and sums of squares; nil when either segment is constant.
    @inline(__always)
    static func pearson(
        product: Double, sumA: Double, squaresA: Double, sumB: Double, squaresB: Double, count: Int
    ) -> Double? {
        let size = Double(count)
        let covariance = product - sumA * sumB / size
        let varianceA = squaresA - sumA * sumA / size
        let varianceB = squaresB - sumB * sumB / size
        let denominator = (varianceA * varianceB).squareRoot()
        return denominator > 0 ? covariance / denominator : nil
    }

    /// The peak of the parabola through the correlations at a lag and its two neighbours: its
    /// offset from the middle lag (within half a lag) and its height, capped at 1; the middle
    /// lag itself when the three do not curve down.
    @inline(__always)
    static func refinedPeak(before: Double, centre: Double, after: Double) -> (offset: Double, height: Double) {
        let curvature = before - 2 * centre + after
        guard curvature < 0 else { return (0, centre) }
        let offset = 0.5 * (before - after) / curvature
        return (offset, min(1, centre - 0.25 * (before - after) * offset))
    }
}
