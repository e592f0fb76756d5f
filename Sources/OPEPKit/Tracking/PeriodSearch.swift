import Foundation

/// A period found in the energy signal by normalised autocorrelation.
struct PeriodCandidate: Equatable {
    /// Period in energy samples, refined below one sample by parabolic interpolation.
    var period: Double
    /// Normalised autocorrelation at that period, in -1...1.
    var correlation: Double
}

/// The study's "economical" normalised autocorrelation (seed 000 section 3 step 7).
///
/// For a lag `τ` the span `x[0..<S]` is compared with itself shifted: `x[0..<S-τ]` against
/// `x[τ..<S]`, and their Pearson correlation is the normalised autocorrelation. Every lag's
/// comparison is centred on the middle of the span, so the estimate describes the span's centre
/// whatever the period. Segment sums come from prefix sums, so each lag costs one dot product.
///
/// Without a previous period every lag of the band is searched and the *shortest* lag whose peak
/// reaches 80 % of the best is chosen, which rules out reporting half the flutter rate (the peaks
/// at 2T, 3T). With a previous period only lags within ±`searchWidth` of it are searched, and the
/// lags at a half, a third and a quarter of it are checked too, so a track can never stay locked
/// on a multiple.
///
/// A periodic envelope also correlates at twice its period; a chance peak in noise almost never
/// does. So when twice the period still fits in the span with `minimumOverlap` samples to spare,
/// the correlation near it must reach `secondPeakMinimum` for the candidate to stand.
struct PeriodSearch {
    /// Shortest and longest lag searched, in energy samples.
    let lagRange: ClosedRange<Int>
    /// Fraction of the previous period searched either side of it.
    let searchWidth: Double
    /// A shorter lag wins if its peak reaches this share of the best (octave-error guard).
    let octaveShare: Double
    /// Correlation needed near twice the period, when that lag fits in the span.
    let secondPeakMinimum: Double
    /// Fewest samples compared at twice the period for that check to be made.
    let minimumOverlap: Int

    /// Samples in the span.
    let spanLength: Int
    /// The span, then `lanes` zeros, so a dot product can run in whole groups of lanes.
    private var span: [Float]
    private var prefix: [Double]
    private var prefixSquares: [Double]
    private var scores: [Double]
    private var scored: [Int]

    init(
        spanLength: Int, lagRange: ClosedRange<Int>, searchWidth: Double, octaveShare: Double = 0.8,
        secondPeakMinimum: Double = 0.3, minimumOverlap: Int
    ) {
        self.lagRange = lagRange
        self.searchWidth = searchWidth
        self.octaveShare = octaveShare
        self.secondPeakMinimum = secondPeakMinimum
        self.minimumOverlap = minimumOverlap
        self.spanLength = spanLength
        span = [Float](repeating: 0, count: spanLength + Self.lanes)
        prefix = [Double](repeating: 0, count: spanLength + 1)
        prefixSquares = [Double](repeating: 0, count: spanLength + 1)
        scores = [Double](repeating: -2, count: max(lagRange.upperBound + 2, spanLength))
        scored = []
        scored.reserveCapacity(scores.count)
    }

    /// Loads the span to analyse from a power-of-two ring (`first` is the oldest sample's index)
    /// with its mean removed; returns the span's variance (zero for digital silence, in which case
    /// there is no period to find).
    ///
    /// The prefix sums run as four interleaved chains, one per quarter of the span, each quarter
    /// then offset by the totals before it: a quarter of the latency of one running sum.
    mutating func load(from ring: UnsafePointer<Float>, mask: Int, first: Int) -> Double {
        let count = spanLength
        let variance = span.withUnsafeMutableBufferPointer { x -> Double in
            prefix.withUnsafeMutableBufferPointer { p -> Double in
                prefixSquares.withUnsafeMutableBufferPointer { q -> Double in
                    let start = first & mask
                    let run = min(count, mask + 1 - start)
                    for i in 0..<run { x[i] = ring[start &+ i] }
                    for i in run..<count { x[i] = ring[i &- run] }
                    let mean = Double(Self.sum(UnsafeBufferPointer(rebasing: x[0..<count]))) / Double(count)
                    for i in 0..<count { x[i] = Float(Double(x[i]) - mean) }
                    let quarter = count / 4
                    var sums = SIMD4<Double>.zero
                    var squares = SIMD4<Double>.zero
                    p[0] = 0
                    q[0] = 0
                    for j in 0..<quarter {
                        let v = SIMD4<Double>(
                            Double(x[j]), Double(x[quarter &+ j]), Double(x[2 &* quarter &+ j]), Double(x[3 &* quarter &+ j]))
                        sums += v
                        squares += v * v
                        for lane in 0..<4 {
                            p[lane &* quarter &+ j &+ 1] = sums[lane]
                            q[lane &* quarter &+ j &+ 1] = squares[lane]
                        }
                    }
                    var carry = 0.0, carrySquares = 0.0
                    for lane in 1..<4 {
                        carry += sums[lane - 1]
                        carrySquares += squares[lane - 1]
                        for i in (lane &* quarter &+ 1)...(lane &* quarter &+ quarter) {
                            p[i] += carry
                            q[i] += carrySquares
                        }
                    }
                    var running = p[4 &* quarter], runningSquares = q[4 &* quarter]
                    for i in (4 &* quarter)..<count {
                        let v = Double(x[i])
                        running += v
                        runningSquares += v * v
                        p[i &+ 1] = running
                        q[i &+ 1] = runningSquares
                    }
                    return runningSquares / Double(count)
                }
            }
        }
        for lag in scored { scores[lag] = -2 }
        scored.removeAll(keepingCapacity: true)
        return variance > 1e-30 ? variance : 0
    }

    /// Searches the loaded span, near `previous` when there is one; with `checkFractions`, the
    /// lags at a half, a third and a quarter of `previous` are searched as well.
    mutating func search(near previous: Double?, checkFractions: Bool) -> PeriodCandidate? {
        guard let found = bandSearch(near: previous, checkFractions: checkFractions) else { return nil }
        let double = Int((2 * found.period).rounded())
        guard double + 1 <= spanLength - minimumOverlap else { return found }
        let reachesSecondPeak = score(double) >= secondPeakMinimum || score(double - 1) >= secondPeakMinimum
            || score(double + 1) >= secondPeakMinimum
        return reachesSecondPeak ? found : nil
    }

    private mutating func bandSearch(near previous: Double?, checkFractions: Bool) -> PeriodCandidate? {
        guard let previous else { return globalSearch() }
        guard let local = climb(from: previous) else { return globalSearch() }
        guard checkFractions else { return local }
        for divisor in [4.0, 3.0, 2.0] {
            guard let shorter = climb(from: previous / divisor) else { continue }
            if shorter.correlation >= octaveShare * local.correlation { return shorter }
        }
        return local
    }

    /// The local maximum reached by climbing the correlation from the lag nearest `start`,
    /// refined; nil when the climb leaves ±`searchWidth` around `start` or the lag range.
    private mutating func climb(from start: Double) -> PeriodCandidate? {
        let low = max(lagRange.lowerBound, Int((start * (1 - searchWidth)).rounded(.down)))
        let high = min(lagRange.upperBound, Int((start * (1 + searchWidth)).rounded(.up)))
        var lag = Int(start.rounded())
        guard low < lag, lag < high else { return nil }
        while true {
            let here = score(lag)
            if score(lag + 1) > here {
                lag += 1
            } else if score(lag - 1) > here {
                lag -= 1
            } else {
                return peakAt(lag)
            }
            guard low < lag, lag < high else { return nil }
        }
    }

    private mutating func globalSearch() -> PeriodCandidate? {
        let inner = (lagRange.lowerBound + 1)..<lagRange.upperBound
        var best: PeriodCandidate?
        for lag in inner {
            guard let peak = peakAt(lag), peak.correlation > (best?.correlation ?? -.infinity) else { continue }
            best = peak
        }
        guard let best else { return nil }
        for lag in inner {
            if let peak = peakAt(lag), peak.correlation >= octaveShare * best.correlation { return peak }
        }
        return best
    }

    /// A refined peak if `lag` is a local maximum of the correlation.
    private mutating func peakAt(_ lag: Int) -> PeriodCandidate? {
        let centre = score(lag)
        let before = score(lag - 1)
        let after = score(lag + 1)
        guard centre > before, centre >= after else { return nil }
        let curvature = before - 2 * centre + after
        guard curvature < 0 else { return PeriodCandidate(period: Double(lag), correlation: centre) }
        let offset = 0.5 * (before - after) / curvature
        let height = centre - 0.25 * (before - after) * offset
        return PeriodCandidate(period: Double(lag) + offset, correlation: min(1, height))
    }

    /// Pearson correlation of the span with itself shifted by `lag`, memoised per span.
    private mutating func score(_ lag: Int) -> Double {
        if scores[lag] > -2 { return scores[lag] }
        let total = spanLength, n = spanLength - lag
        var value = -1.0
        if n >= 4 {
            let product = span.withUnsafeBufferPointer { Double(Self.dot($0, lag: lag, count: n)) }
            let (sumA, sumB, squaresA, squaresB) = prefix.withUnsafeBufferPointer { p in
                prefixSquares.withUnsafeBufferPointer { q in (p[n], p[total] - p[lag], q[n], q[total] - q[lag]) }
            }
            let count = Double(n)
            let covariance = product - sumA * sumB / count
            let varianceA = squaresA - sumA * sumA / count
            let varianceB = squaresB - sumB * sumB / count
            let denominator = (varianceA * varianceB).squareRoot()
            if denominator > 0 { value = covariance / denominator }
        }
        scores[lag] = value
        scored.append(lag)
        return value
    }

    /// Lanes of the dot product; the span is followed by this many zeros.
    private static let lanes = 16

    /// `Σ x[i] · x[i + lag]` for `i < count`, sixteen lanes at a time. The last group runs into
    /// the zeros after the span (`count + lag` is the span's length), which add nothing.
    @inline(__always)
    private static func dot(_ x: UnsafeBufferPointer<Float>, lag: Int, count: Int) -> Float {
        guard let base = x.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base), shifted = UnsafeRawPointer(base + lag)
        let stride = MemoryLayout<Float>.stride
        var low = SIMD8<Float>.zero, high = SIMD8<Float>.zero
        var offset = 0
        let end = count &* stride
        while offset < end {
            low += raw.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                * shifted.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            high += raw.loadUnaligned(fromByteOffset: offset &+ 8 &* stride, as: SIMD8<Float>.self)
                * shifted.loadUnaligned(fromByteOffset: offset &+ 8 &* stride, as: SIMD8<Float>.self)
            offset &+= lanes &* stride
        }
        return (low + high).sum()
    }

    /// `Σ x[i]`, sixteen lanes at a time.
    private static func sum(_ x: UnsafeBufferPointer<Float>) -> Float {
        guard let base = x.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        let stride = MemoryLayout<Float>.stride
        var low = SIMD8<Float>.zero, high = SIMD8<Float>.zero
        var i = 0
        while i &+ lanes <= x.count {
            low += raw.loadUnaligned(fromByteOffset: i &* stride, as: SIMD8<Float>.self)
            high += raw.loadUnaligned(fromByteOffset: (i &+ 8) &* stride, as: SIMD8<Float>.self)
            i &+= lanes
        }
        var total = (low + high).sum()
        while i < x.count {
            total += base[i]
            i &+= 1
        }
        return total
    }
}
