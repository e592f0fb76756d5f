
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

    /// What a search looks for, and where.
    struct Settings {
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
    }

    let settings: Settings

    /// A score no correlation takes (they lie in -1...1): the lag is not scored yet.
    private static let unscored = -2.0
    /// Per lag, the correlation the current search scored, or ``unscored``.
    private var scores: [Double]
    /// The lags scored since the current search began (the first `scoredCount`); each lag is
    /// scored once per search, so they never outnumber `scores`.
    private var scored: [Int]
    private var scoredCount = 0
    /// The peaks the global search found, by lag.
    private var peaks: [(lag: Int, peak: PeriodCandidate)]

    init(
        spanLength: Int, lagRange: ClosedRange<Int>, searchWidth: Double, octaveShare: Double,
        minimumOverlap: Int, secondPeakMinimum: Double
    ) {
        settings = Settings(
            lagRange: lagRange, searchWidth: searchWidth, octaveShare: octaveShare, minimumOverlap: minimumOverlap,
            secondPeakMinimum: secondPeakMinimum, spanLength: spanLength)
        scores = [Double](repeating: Self.unscored, count: max(lagRange.upperBound + 2, spanLength))
        scored = [Int](repeating: 0, count: scores.count)
        peaks = [(lag: Int, peak: PeriodCandidate)](repeating: (0, PeriodCandidate(period: 0, correlation: 0)), count: lagRange.count)
    }

    /// The variance of the span's samples (zero for digital silence, in which case there is no
    /// period to find).
    func variance(of span: Span) -> Double {
        let spanLength = settings.spanLength
        let (sum, squares) = Self.totals(span, upTo: spanLength)
        let mean = sum / Double(spanLength)
        let variance = squares / Double(spanLength) - mean * mean
        return variance > 1e-30 ? variance : 0
    }

    /// Searches `span`, near `previous` when there is one; with `checkFractions`, the lags at a
    /// half, a third and a quarter of `previous` are searched as well. When nothing is found near
    /// `previous`, the whole band is searched, unless `onlyNear` is set.
    mutating func search(_ span: Span, near previous: Double?, checkFractions: Bool, onlyNear: Bool = false) -> PeriodCandidate? {
        withMemo(span, clearing: true) { $0.search(near: previous, checkFractions: checkFractions, onlyNear: onlyNear) }
    }

    /// The correlation at `lag` of the span the last ``search(_:near:checkFractions:onlyNear:)``
    /// read (memoised with that search's scores); call it only for that span.
    mutating func correlation(_ span: Span, at lag: Int) -> Double {
        withMemo(span, clearing: false) { $0.score(lag) }
    }

    /// Runs `body` on the memo of scores over `span`, first clearing the last search's scores
    /// when `clearing`. The arrays are lent to the memo as pointers for the whole search, so
    /// that scoring a lag checks neither their bounds nor whether they are shared.
    private mutating func withMemo<Result>(_ span: Span, clearing: Bool, _ body: (inout Memo) -> Result) -> Result {
        var scoreBuffer: [Double] = [], scoredBuffer: [Int] = [], peakBuffer: [(lag: Int, peak: PeriodCandidate)] = []
        swap(&scoreBuffer, &scores)
        swap(&scoredBuffer, &scored)
        swap(&peakBuffer, &peaks)
        defer {
            swap(&scoreBuffer, &scores)
            swap(&scoredBuffer, &scored)
            swap(&peakBuffer, &peaks)
        }
        let settings = settings
        var count = scoredCount
        let result = scoreBuffer.withUnsafeMutableBufferPointer { scores in
            scoredBuffer.withUnsafeMutableBufferPointer { scored in
                peakBuffer.withUnsafeMutableBufferPointer { peaks in
                    if clearing {
                        for k in 0..<count { scores[scored[k]] = Self.unscored }
                        count = 0
                    }
                    var memo = Memo(
                        settings: settings, span: span, scores: scores.baseAddress!, scored: scored.baseAddress!,
                        scoredCount: count, peaks: peaks.baseAddress!)
                    let result = body(&memo)
                    count = memo.scoredCount
                    return result
                }
            }
        }
        scoredCount = count
        return result
    }

    /// One search over one span: the correlations it scored, by lag, and the peaks it found.
    private struct Memo {
        let settings: Settings
        let span: Span
        let scores: UnsafeMutablePointer<Double>
        let scored: UnsafeMutablePointer<Int>
        var scoredCount: Int
        let peaks: UnsafeMutablePointer<(lag: Int, peak: PeriodCandidate)>
        var peakCount = 0

        mutating func search(near previous: Double?, checkFractions: Bool, onlyNear: Bool) -> PeriodCandidate? {
            guard var found = bandSearch(near: previous, checkFractions: checkFractions, onlyNear: onlyNear) else { return nil }
            let double = Int((2 * found.period).rounded())
            guard double + 1 <= settings.spanLength - settings.minimumOverlap else { return found }
            let nearest = score(double)
            found.secondPeak = nearest >= settings.secondPeakMinimum ? nearest : max(nearest, score(double - 1), score(double + 1))
            return found
        }

        private mutating func bandSearch(near previous: Double?, checkFractions: Bool, onlyNear: Bool) -> PeriodCandidate? {
            guard let previous else { return globalSearch() }
            guard let local = climb(from: previous) else { return onlyNear ? nil : globalSearch() }
            guard checkFractions else { return local }
            for divisor in [4.0, 3.0, 2.0] {
                guard let shorter = climb(from: previous / divisor) else { continue }
                if shorter.correlation >= settings.octaveShare * local.correlation { return shorter }
            }
            return local
        }

        /// The local maximum reached by climbing the correlation from the lag nearest `start`,
        /// refined; nil when the climb leaves ±`searchWidth` around `start` or the lag range.
        private mutating func climb(from start: Double) -> PeriodCandidate? {
            let low = max(settings.lagRange.lowerBound, Int((start * (1 - settings.searchWidth)).rounded(.down)))
            let high = min(settings.lagRange.upperBound, Int((start * (1 + settings.searchWidth)).rounded(.up)))
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

        /// Every peak of the band, then the shortest whose height reaches `octaveShare` of the best.
        ///
        /// The correlation is first scored on every other lag. The envelope is Gaussian-smoothed
        /// (σ = 0.2 × the shortest period, several lags), so its correlation varies slowly from lag
        /// to lag: every local maximum lies within one lag of a local maximum of that coarse grid,
        /// where the peaks are then found lag by lag. That is the same set of peaks for about 60 % of
        /// the dot products. The whole grid is scored before any of it is compared, so that no
        /// decision stands between its correlations and the processor works on several at once.
        private mutating func globalSearch() -> PeriodCandidate? {
            let inner = (settings.lagRange.lowerBound + 1)...(settings.lagRange.upperBound - 1)
            guard inner.count >= 3 else { return nil }
            peakCount = 0
            for lag in Swift.stride(from: inner.lowerBound, through: inner.upperBound, by: 2) { _ = score(lag) }
            var previous = -Double.infinity
            var lag = inner.lowerBound
            var here = score(lag)
            while lag <= inner.upperBound {
                let next = lag + 2 <= inner.upperBound ? score(lag + 2) : -.infinity
                if here >= previous, here >= next {
                    for candidate in max(inner.lowerBound, lag - 1)...min(inner.upperBound, lag + 1) {
                        guard candidate > (peakCount > 0 ? peaks[peakCount - 1].lag : .min), let peak = peakAt(candidate) else { continue }
                        peaks[peakCount] = (candidate, peak)
                        peakCount += 1
                    }
                }
                previous = here
                here = next
                lag += 2
            }
            var best = -Double.infinity
            for k in 0..<peakCount { best = max(best, peaks[k].peak.correlation) }
            for k in 0..<peakCount where peaks[k].peak.correlation >= settings.octaveShare * best { return peaks[k].peak }
            return nil
        }

        /// A refined peak if `lag` is a local maximum of the correlation.
        private mutating func peakAt(_ lag: Int) -> PeriodCandidate? {
            let centre = score(lag)
            let before = score(lag - 1)
            let after = score(lag + 1)
            guard centre > before, centre >= after else { return nil }
            let peak = LaggedCorrelation.refinedPeak(before: before, centre: centre, after: after)
            return PeriodCandidate(period: Double(lag) + peak.offset, correlation: peak.height)
        }

        /// Pearson correlation of the span with itself shifted by `lag`, memoised per search.
        @inline(__always)
        mutating func score(_ lag: Int) -> Double {
            if scores[lag] > PeriodSearch.unscored { return scores[lag] }
            let value = PeriodSearch.correlation(of: span, at: lag, spanLength: settings.spanLength)
            scores[lag] = value
            scored[scoredCount] = lag
            scoredCount += 1
            return value
        }
    }

    /// The sum and the sum of squares of the span's first `count` samples.
    @inline(__always)
    private static func totals(_ span: Span, upTo count: Int) -> (Double, Double) {
        let end = (span.before &+ count) & span.mask
        return (span.sums[end] - span.sums[span.before], span.squares[end] - span.squares[span.before])
    }

    /// Pearson correlation of any span with itself shifted by `lag` (-1 when too short or
    /// constant), not memoised.
    @inline(__always)
    func correlation(of span: Span, at lag: Int) -> Double {
        Self.correlation(of: span, at: lag, spanLength: settings.spanLength)
    }

    @inline(__always)
    private static func correlation(of span: Span, at lag: Int, spanLength: Int) -> Double {
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
