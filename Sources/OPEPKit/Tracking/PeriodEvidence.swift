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
/// level that 95 % of plain-breath frames stay below went from a median of 0.53 on single spans
/// to 0.86 with a 0.15 s memory; docs/real-breath.md).
///
/// The evidence decides, it does not measure: the period reported comes from the full-rate
/// ``PeriodSearch``. So it reads every `step`-th sample of the span (the envelope is smoothed
/// with σ = 0.2 of the shortest period, so at 1/3 of the energy rate nothing above the flutter's
/// harmonics aliases) at every `step`-th lag, a ninth of the dot products at step 3, with the
/// peak refined by a parabola. Pearson correlation per lag as the search's (``LaggedCorrelation``),
/// its segment sums from prefix sums of the subsampled span. Allocation happens in the initialiser.
struct PeriodEvidence {
    /// Lags held, in subsampled steps.
    let lagRange: ClosedRange<Int>
    /// Samples of the span per subsampled sample.
    let step: Int
    /// Weight the average keeps at each update, `exp(-interval / timeConstant)`.
    let retention: Double
    /// A shorter lag wins if its peak reaches this share of the best (octave-error guard).
    let octaveShare: Double
    private var average: [Double]
    private var samples: [Float]
    private var sums: [Double]
    private var squares: [Double]

    /// Evidence for the periods `periods` (in samples of the envelope) from spans of
    /// `spanLength` samples read every `step`-th, updated every `interval` seconds with a memory
    /// of `timeConstant` seconds.
    init(
        periods: ClosedRange<Int>, spanLength: Int, step: Int, interval: Double, timeConstant: Double, octaveShare: Double
    ) {
        self.step = max(1, step)
        let count = spanLength / self.step
        let low = max(1, periods.lowerBound / self.step)
        lagRange = low...max(low + 2, min(count - 4, (periods.upperBound + self.step - 1) / self.step))
        retention = timeConstant > 0 ? exponential(-interval / timeConstant) : 0
        self.octaveShare = octaveShare
        average = [Double](repeating: 0, count: lagRange.count)
        samples = [Float](repeating: 0, count: count)
        sums = [Double](repeating: 0, count: count + 1)
        squares = sums
    }

    mutating func reset() {
        for i in average.indices { average[i] = 0 }
    }

    /// Mixes the correlation at every lag of the span starting at `span` (`spanLength` samples)
    /// into the average.
    mutating func update(span: UnsafePointer<Float>) {
        let count = samples.count, step = step
        samples.withUnsafeMutableBufferPointer { samples in
            sums.withUnsafeMutableBufferPointer { sums in
                squares.withUnsafeMutableBufferPointer { squares in
                    var total = 0.0, totalSquares = 0.0
                    for i in 0..<count {
                        let sample = span[i &* step], value = Double(sample)
                        samples[i] = sample
                        total += value
                        totalSquares += value * value
                        sums[i &+ 1] = total
                        squares[i &+ 1] = totalSquares
                    }
                }
            }
        }
        let keep = retention, low = lagRange.lowerBound
        samples.withUnsafeBufferPointer { x in
            sums.withUnsafeBufferPointer { sums in
                squares.withUnsafeBufferPointer { squares in
                    average.withUnsafeMutableBufferPointer { average in
                        for i in average.indices {
                            let lag = low + i, n = count - lag
                            let r = LaggedCorrelation.pearson(
                                product: Double(LaggedCorrelation.dot(x.baseAddress!, lag: lag, count: n)),
                                sumA: sums[n], squaresA: squares[n], sumB: sums[count] - sums[lag],
                                squaresB: squares[count] - squares[lag], count: n) ?? 0
                            average[i] = keep * average[i] + (1 - keep) * r
                        }
                    }
                }
            }
        }
    }

    /// A span with nothing to correlate (silence, or too shallow to carry a flutter): the
    /// evidence fades.
    mutating func decay() {
        for i in average.indices { average[i] *= retention }
    }

    /// The averaged correlation at `period` (in samples of the envelope), interpolated between
    /// lags; 0 outside the lags held.
    func value(at period: Double) -> Double {
        let position = period / Double(step) - Double(lagRange.lowerBound)
        guard position >= 0, position <= Double(average.count - 1) else { return 0 }
        let below = Int(position)
        guard below + 1 < average.count else { return average[below] }
        let fraction = position - Double(below)
        return average[below] * (1 - fraction) + average[below + 1] * fraction
    }

    /// The shortest peak whose averaged correlation reaches `octaveShare` of the highest, refined
    /// by parabolic interpolation, its period in samples of the envelope; nil when the average has
    /// no peak inside the lags held. Peaks within `consistency` (a share) of `excluded` or of a
    /// multiple of it (a room's own period, in samples of the envelope) are passed over.
    func strongest(apartFrom excluded: Double? = nil, consistency: Double = 0) -> PeriodCandidate? {
        let end = average.count - 1
        var best = -Double.infinity
        for i in 1..<max(1, end) where isPeak(i) && !isMultiple(i, of: excluded, consistency: consistency) {
            best = max(best, average[i])
        }
        guard best > -Double.infinity else { return nil }
        for i in 1..<end where isPeak(i) && average[i] >= octaveShare * best && !isMultiple(i, of: excluded, consistency: consistency) {
            let peak = LaggedCorrelation.refinedPeak(before: average[i - 1], centre: average[i], after: average[i + 1])
            let lag = Double(lagRange.lowerBound + i) + peak.offset
            return PeriodCandidate(period: lag * Double(step), correlation: peak.height)
        }
        return nil
    }

    /// Whether the lag at index `i` lies within `consistency` of a whole multiple of `period`.
    private func isMultiple(_ i: Int, of period: Double?, consistency: Double) -> Bool {
        guard let period, period > 0 else { return false }
        let lag = Double((lagRange.lowerBound + i) * step)
        let multiple = max(1, (lag / period).rounded())
        return abs(lag - multiple * period) <= consistency * multiple * period
    }

    private func isPeak(_ i: Int) -> Bool {
        average[i] > average[i - 1] && average[i] >= average[i + 1]
    }
}
