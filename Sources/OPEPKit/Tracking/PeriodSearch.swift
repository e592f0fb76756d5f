
/// A period found in the energy signal by normalised autocorrelation.
struct PeriodCandidate: Equatable {
    /// Period in energy samples, refined below one sample by parabolic interpolation.
    var period: Double
    /// Normalised autocorrelation at that period, in -1...1.
    var correlation: Double
    /// The correlation at the lag nearest twice the period when it reaches the search's
    /// `secondPeakMinimum`, otherwise the highest within a lag of it, when that lag fits in the
    /// span with enough overlap; nil when it does not fit (or was not looked at).
    var secondPeak: Double? = nil
}

/// The study's "economical" normalised autocorrelation (seed 000 section 3 step 7).
///
/// For a lag `τ` the span `x[0..<S]` is compared with itself shifted: `x[0..<S-τ]` against
/// `x[τ..<S]`, and their Pearson correlation is the normalised autocorrelation. Every lag's
/// comparison is centred on the middle of the span, so the estimate describes the span's centre
/// whatever the period. Segment sums come from the running sums the tracker keeps with its ring
/// (differences of two totals), so each lag costs one dot product and loading a span costs
/// nothing.
///
/// Without a previous period every lag of the band is searched and the *shortest* lag whose peak
/// reaches 80 % of the best is chosen, which rules out reporting half the flutter rate (the peaks
/// at 2T, 3T). With a previous period only lags within ±`searchWidth` of it are searched, and the
/// lags at a half, a third and a quarter of it are checked too, so a track can never stay locked
/// on a multiple.
///
/// A periodic envelope also correlates at twice its period; a chance peak in noise rarely does.
/// So when twice the period still fits in the span with `minimumOverlap` samples to spare, the
/// candidate carries the correlation there (``PeriodCandidate/secondPeak``) for the tracker to
/// judge against `secondPeakMinimum`: the one at the nearest lag when it is enough, the highest
/// within a lag of it when not (the neighbours cost two more correlations, so they are computed
/// only when they can change the verdict).
struct PeriodSearch {
    /// Where a span lies in the tracker's rings; valid only while the rings are borrowed.
    struct Span {
        /// The span's samples, contiguous.
        var samples: UnsafePointer<Float>
        /// Per ring slot, the total of the samples up to and including it, from any origin.
        var sums: UnsafePointer<Double>
        /// Per ring slot, the total of the squared samples, from the same origin.
        var squares: UnsafePointer<Double>
        /// Ring size minus one (a power of two minus one).
        var mask: Int
        /// Ring index of the sample just before the span.
        var before: Int
    }

    /// Shortest and longest lag searched, in energy samples.
    let lagRange: ClosedRange<Int>
    /// Fraction of the previous period searched either side of it.
    let searchWidth: Double
    /// A shorter lag wins if its peak reaches this share of the best (octave-error guard).
    let octaveShare: Double
    /// Fewest samples compared at twice the period for that check to be made.
    let minimumOverlap: Int
    /// The correlation near twice the period that lets a period stand.
    let secondPeakMinimum: Double
    /// Samples in the span.
    let spanLength: Int

    private var scores: [Double]
    private var scored: [Int]
    /// The peaks the global search found, by lag.
    private var peaks: [(lag: Int, peak: PeriodCandidate)]

    init(
        spanLength: Int, lagRange: ClosedRange<Int>, searchWidth: Double, octaveShare: Double,
        minimumOverlap: Int, secondPeakMinimum: Double
    ) {
        self.lagRange = lagRange
        self.searchWidth = searchWidth
        self.octaveShare = octaveShare
        self.minimumOverlap = minimumOverlap
        self.secondPeakMinimum = secondPeakMinimum
        self.spanLength = spanLength
        scores = [Double](repeating: -2, count: max(lagRange.upperBound + 2, spanLength))
        scored = []
        scored.reserveCapacity(scores.count)
        peaks = []
        peaks.reserveCapacity(lagRange.count)
    }

    /// The variance of the span's samples (zero for digital silence, in which case there is no
    /// period to find).
    func variance(of span: Span) -> Double {
        let (sum, squares) = totals(span, upTo: spanLength)
        let mean = sum / Double(spanLength)
        let variance = squares / Double(spanLength) - mean * mean
        return variance > 1e-30 ? variance : 0
    }

    /// Searches `span`, near `previous` when there is one; with `checkFractions`, the lags at a
    /// half, a third and a quarter of `previous` are searched as well. When nothing is found near
    /// `previous`, the whole band is searched, unless `onlyNear` is set.
    mutating func search(_ span: Span, near previous: Double?, checkFractions: Bool, onlyNear: Bool = false) -> PeriodCandidate? {
        for lag in scored { scores[lag] = -2 }
        scored.removeAll(keepingCapacity: true)
        guard var found = bandSearch(span, near: previous, checkFractions: checkFractions, onlyNear: onlyNear) else { return nil }
        let double = Int((2 * found.period).rounded())
        guard double + 1 <= spanLength - minimumOverlap else { return found }
        let nearest = score(span, double)
        found.secondPeak = nearest >= secondPeakMinimum ? nearest : max(nearest, score(span, double - 1), score(span, double + 1))
        return found
    }

    /// The correlation at `lag` of the span the last ``search(_:near:checkFractions:)`` read
    /// (memoised with that search's scores); call it only for that span.
    mutating func correlation(_ span: Span, at lag: Int) -> Double {
        score(span, lag)
    }

    private mutating func bandSearch(_ span: Span, near previous: Double?, checkFractions: Bool, onlyNear: Bool) -> PeriodCandidate? {
        guard let previous else { return globalSearch(span) }
        guard let local = climb(span, from: previous) else { return onlyNear ? nil : globalSearch(span) }
        guard checkFractions else { return local }
        for divisor in [4.0, 3.0, 2.0] {
            guard let shorter = climb(span, from: previous / divisor) else { continue }
            if shorter.correlation >= octaveShare * local.correlation { return shorter }
        }
        return local
    }

    /// The local maximum reached by climbing the correlation from the lag nearest `start`,
    /// refined; nil when the climb leaves ±`searchWidth` around `start` or the lag range.
    private mutating func climb(_ span: Span, from start: Double) -> PeriodCandidate? {
        let low = max(lagRange.lowerBound, Int((start * (1 - searchWidth)).rounded(.down)))
        let high = min(lagRange.upperBound, Int((start * (1 + searchWidth)).rounded(.up)))
        var lag = Int(start.rounded())
        guard low < lag, lag < high else { return nil }
        while true {
            let here = score(span, lag)
            if score(span, lag + 1) > here {
                lag += 1
            } else if score(span, lag - 1) > here {
                lag -= 1
            } else {
                return peakAt(span, lag)
            }
            guard low < lag, lag < high else { return nil }
        }
    }

    /// Every peak of the band, then the shortest whose height reaches `octaveShare` of the best.
    ///
    /// The correlation is first scored on every other lag. The envelope is Gaussian-smoothed
    /// (σ = 0.2 × the shortest period, several lags), so its correlation varies slowly from lag
    /// to lag: every local maximum lies within one lag of a local maximum of that coarse grid,
    /// where the peaks are then found lag by lag. That is the same set of peaks for about 60 % of
    /// the dot products. The whole grid is scored before any of it is compared, so that no
    /// decision stands between its correlations and the processor works on several at once.
    private mutating func globalSearch(_ span: Span) -> PeriodCandidate? {
        let inner = (lagRange.lowerBound + 1)...(lagRange.upperBound - 1)
        guard inner.count >= 3 else { return nil }
        peaks.removeAll(keepingCapacity: true)
        for lag in Swift.stride(from: inner.lowerBound, through: inner.upperBound, by: 2) { _ = score(span, lag) }
        var previous = -Double.infinity
        var lag = inner.lowerBound
        var here = score(span, lag)
        while lag <= inner.upperBound {
            let next = lag + 2 <= inner.upperBound ? score(span, lag + 2) : -.infinity
            if here >= previous, here >= next {
                for candidate in max(inner.lowerBound, lag - 1)...min(inner.upperBound, lag + 1) {
                    guard candidate > (peaks.last?.lag ?? .min), let peak = peakAt(span, candidate) else { continue }
                    peaks.append((candidate, peak))
                }
            }
            previous = here
            here = next
            lag += 2
        }
        var best = -Double.infinity
        for found in peaks { best = max(best, found.peak.correlation) }
        return peaks.first { $0.peak.correlation >= octaveShare * best }?.peak
    }

    /// A refined peak if `lag` is a local maximum of the correlation.
    private mutating func peakAt(_ span: Span, _ lag: Int) -> PeriodCandidate? {
        let centre = score(span, lag)
        let before = score(span, lag - 1)
        let after = score(span, lag + 1)
        guard centre > before, centre >= after else { return nil }
        let peak = LaggedCorrelation.refinedPeak(before: before, centre: centre, after: after)
        return PeriodCandidate(period: Double(lag) + peak.offset, correlation: peak.height)
    }

    /// The sum and the sum of squares of the span's first `count` samples.
    @inline(__always)
    private func totals(_ span: Span, upTo count: Int) -> (Double, Double) {
        let end = (span.before &+ count) & span.mask
        return (span.sums[end] - span.sums[span.before], span.squares[end] - span.squares[span.before])
    }

    /// Pearson correlation of the span with itself shifted by `lag`, memoised per search.
    @inline(__always)
    private mutating func score(_ span: Span, _ lag: Int) -> Double {
        if scores[lag] > -2 { return scores[lag] }
        let value = correlation(of: span, at: lag)
        scores[lag] = value
        scored.append(lag)
        return value
    }

    /// Pearson correlation of any span with itself shifted by `lag` (-1 when too short or
    /// constant), not memoised.
    @inline(__always)
    func correlation(of span: Span, at lag: Int) -> Double {
        let n = spanLength - lag
        var value = -1.0
        if n >= LaggedCorrelation.fewestPairs {
            let (sumA, squaresA) = totals(span, upTo: n)
            let (sumAll, squaresAll) = totals(span, upTo: spanLength)
            let (sumLag, squaresLag) = totals(span, upTo: lag)
            value = LaggedCorrelation.pearson(
                product: Double(LaggedCorrelation.dot(span.samples, lag: lag, count: n)),
                sumA: sumA, squaresA: squaresA, sumB: sumAll - sumLag, squaresB: squaresAll - squaresLag, count: n) ?? -1
        }
        return value
    }
}
