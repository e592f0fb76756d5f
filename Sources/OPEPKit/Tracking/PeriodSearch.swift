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
/// reaches 90 % of the best is chosen, which rules out reporting half the flutter rate (the peaks
/// at 2T, 3T). With a previous period only lags within ±`searchWidth` of it are searched, and the
/// lag at half the period is checked too, so a track can never stay locked on a multiple.
struct PeriodSearch {
    /// Shortest and longest lag searched, in energy samples.
    let lagRange: ClosedRange<Int>
    /// Fraction of the previous period searched either side of it.
    let searchWidth: Double
    /// A shorter lag wins if its peak reaches this share of the best (octave-error guard).
    let octaveShare: Double

    private var span: [Float]
    private var prefix: [Double]
    private var prefixSquares: [Double]
    private var scores: [Double]

    init(spanLength: Int, lagRange: ClosedRange<Int>, searchWidth: Double, octaveShare: Double = 0.9) {
        self.lagRange = lagRange
        self.searchWidth = searchWidth
        self.octaveShare = octaveShare
        span = [Float](repeating: 0, count: spanLength)
        prefix = [Double](repeating: 0, count: spanLength + 1)
        prefixSquares = [Double](repeating: 0, count: spanLength + 1)
        scores = [Double](repeating: -2, count: lagRange.upperBound + 2)
    }

    /// Loads the span to analyse (oldest first) with its mean removed; returns false when the span
    /// has no variation at all (digital silence), in which case there is no period to find.
    mutating func load(_ copy: (inout [Float]) -> Void) -> Bool {
        copy(&span)
        let count = span.count
        var mean: Double = 0
        for v in span { mean += Double(v) }
        mean /= Double(count)
        var running: Double = 0
        var runningSquares: Double = 0
        for i in 0..<count {
            let v = Float(Double(span[i]) - mean)
            span[i] = v
            running += Double(v)
            runningSquares += Double(v) * Double(v)
            prefix[i + 1] = running
            prefixSquares[i + 1] = runningSquares
        }
        for i in scores.indices { scores[i] = -2 }
        return runningSquares > Double(count) * 1e-30
    }

    /// Searches the loaded span, near `previous` when there is one.
    mutating func search(near previous: Double?) -> PeriodCandidate? {
        guard let previous else { return globalSearch() }
        let low = max(lagRange.lowerBound, Int((previous * (1 - searchWidth)).rounded(.down)))
        let high = min(lagRange.upperBound, Int((previous * (1 + searchWidth)).rounded(.up)))
        guard low < high, let local = bestPeak(in: low...high) else { return globalSearch() }
        let half = previous / 2
        if half * (1 + searchWidth) >= Double(lagRange.lowerBound) {
            let halfLow = max(lagRange.lowerBound, Int((half * (1 - searchWidth)).rounded(.down)))
            let halfHigh = min(lagRange.upperBound, Int((half * (1 + searchWidth)).rounded(.up)))
            if halfLow < halfHigh, let shorter = bestPeak(in: halfLow...halfHigh),
                shorter.correlation >= octaveShare * local.correlation {
                return shorter
            }
        }
        return local
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

    /// The highest local maximum strictly inside `range`, refined; nil when the maximum lies on
    /// the range's edge (the true peak is elsewhere).
    private mutating func bestPeak(in range: ClosedRange<Int>) -> PeriodCandidate? {
        var bestLag = range.lowerBound
        var bestScore = -Double.infinity
        for lag in range {
            let s = score(lag)
            if s > bestScore { bestScore = s; bestLag = lag }
        }
        guard bestLag > range.lowerBound, bestLag < range.upperBound else { return nil }
        return peakAt(bestLag)
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
        let n = span.count - lag
        let value: Double
        if n < 4 {
            value = -1
        } else {
            let product = span.withUnsafeBufferPointer { Double(Self.dot($0, lag: lag, count: n)) }
            let count = Double(n)
            let sumA = prefix[n], sumB = prefix[span.count] - prefix[lag]
            let squaresA = prefixSquares[n], squaresB = prefixSquares[span.count] - prefixSquares[lag]
            let covariance = product - sumA * sumB / count
            let varianceA = squaresA - sumA * sumA / count
            let varianceB = squaresB - sumB * sumB / count
            let denominator = (varianceA * varianceB).squareRoot()
            value = denominator > 0 ? covariance / denominator : -1
        }
        scores[lag] = value
        return value
    }

    /// `Σ x[i] · x[i + lag]` for `i < count`, eight lanes at a time.
    @inline(__always)
    private static func dot(_ x: UnsafeBufferPointer<Float>, lag: Int, count: Int) -> Float {
        guard let base = x.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        let stride = MemoryLayout<Float>.stride
        var lanes = SIMD8<Float>.zero
        var i = 0
        while i + 8 <= count {
            let a = raw.loadUnaligned(fromByteOffset: i * stride, as: SIMD8<Float>.self)
            let b = raw.loadUnaligned(fromByteOffset: (i + lag) * stride, as: SIMD8<Float>.self)
            lanes += a * b
            i += 8
        }
        var total = lanes.sum()
        while i < count {
            total += base[i] * base[i + lag]
            i += 1
        }
        return total
    }
}
