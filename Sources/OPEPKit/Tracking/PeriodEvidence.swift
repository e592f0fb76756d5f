/// The normalised autocorrelation of the envelope at every lag of the band, averaged over the
/// last spans with an exponential memory: evidence for a period that grows while the period
/// persists.
///
/// A single 0.25 s span of a real exhalation correlates with itself above 0.4 at some 10-40 Hz
/// lag a third of the time and above 0.6 one time in twenty (`shared/real-breath-stats.md`): the
/// breath's own loudness fluctuates inside the flutter band. Those chance peaks fall at a
/// different lag from one span to the next, while a flutter's stays at its period. Averaging the
/// correlation per lag over the spans of the last `timeConstant` seconds keeps the flutter's peak
/// and flattens the chance ones (on simulated real breath, the share of flutter frames above the
/// level that 95 % of plain-breath frames stay below went from about one half on single spans to
/// about 0.8-0.9 with a 0.15 s memory; docs/real-breath.md).
///
/// The tracker updates it once per acquisition interval with the span's full correlation curve
/// (or lets it decay when there is nothing to correlate). Allocation happens in the initialiser.
struct PeriodEvidence {
    /// Lags held, in energy samples.
    let lagRange: ClosedRange<Int>
    /// Weight the average keeps at each update, `exp(-interval / timeConstant)`.
    let retention: Double
    /// A shorter lag wins if its peak reaches this share of the best (octave-error guard).
    let octaveShare: Double
    private var average: [Double]

    /// Evidence over `lagRange` updated every `interval` seconds with a memory of `timeConstant`
    /// seconds.
    init(lagRange: ClosedRange<Int>, interval: Double, timeConstant: Double, octaveShare: Double = 0.8) {
        self.lagRange = lagRange
        retention = timeConstant > 0 ? exponential(-interval / timeConstant) : 0
        self.octaveShare = octaveShare
        average = [Double](repeating: 0, count: lagRange.count)
    }

    mutating func reset() {
        for i in average.indices { average[i] = 0 }
    }

    /// Mixes the correlation at every lag of the span `search` has just searched into the
    /// average.
    mutating func update(from search: inout PeriodSearch, span: PeriodSearch.Span) {
        update { search.correlation(span, at: $0) }
    }

    /// Mixes one span's correlation at every lag, `correlation(lag)`, into the average.
    mutating func update(_ correlation: (Int) -> Double) {
        let keep = retention, low = lagRange.lowerBound
        for i in average.indices {
            average[i] = keep * average[i] + (1 - keep) * correlation(low + i)
        }
    }

    /// A span with nothing to correlate (silence, or too shallow to carry a flutter): the
    /// evidence fades.
    mutating func decay() {
        for i in average.indices { average[i] *= retention }
    }

    /// The averaged correlation at `period` (in energy samples), interpolated between lags; 0
    /// outside the lags held.
    func value(at period: Double) -> Double {
        let position = period - Double(lagRange.lowerBound)
        guard position >= 0, position <= Double(average.count - 1) else { return 0 }
        let below = Int(position)
        guard below + 1 < average.count else { return average[below] }
        let fraction = position - Double(below)
        return average[below] * (1 - fraction) + average[below + 1] * fraction
    }

    /// The shortest peak whose averaged correlation reaches `octaveShare` of the highest, refined
    /// by parabolic interpolation; nil when the average has no peak inside the lags held.
    func strongest() -> PeriodCandidate? {
        let end = average.count - 1
        var best = -Double.infinity
        for i in 1..<max(1, end) where isPeak(i) { best = max(best, average[i]) }
        guard best > -Double.infinity else { return nil }
        for i in 1..<end where isPeak(i) && average[i] >= octaveShare * best {
            let before = average[i - 1], centre = average[i], after = average[i + 1]
            let curvature = before - 2 * centre + after
            let offset = curvature < 0 ? 0.5 * (before - after) / curvature : 0
            let height = centre - 0.25 * (before - after) * offset
            return PeriodCandidate(period: Double(lagRange.lowerBound + i) + offset, correlation: min(1, height))
        }
        return nil
    }

    private func isPeak(_ i: Int) -> Bool {
        average[i] > average[i - 1] && average[i] >= average[i + 1]
    }
}
