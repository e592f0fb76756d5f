/// How one measure spread over the cases of a corpus.
public struct Spread: Sendable, Hashable, Codable {
    public var minimum: Double
    public var p10: Double
    public var median: Double
    public var p90: Double
    public var maximum: Double
    /// The case at the bad end (the lowest coverage, the largest error).
    public var worstCase: String
    /// Cases without a value (no pitch at all for the error measures), left out of the spread.
    public var missing: Int

    init?(_ values: [(name: String, value: Double?)], higherIsBetter: Bool) {
        let present = values.compactMap { v in v.value.map { (v.name, $0) } }
        guard !present.isEmpty else { return nil }
        let sorted = present.map(\.1).sorted()
        minimum = sorted[0]
        p10 = quantile(sorted, 0.1)!
        median = quantile(sorted, 0.5)!
        p90 = quantile(sorted, 0.9)!
        maximum = sorted[sorted.count - 1]
        let worst = higherIsBetter ? present.min { $0.1 < $1.1 }! : present.max { $0.1 < $1.1 }!
        worstCase = worst.0
        missing = values.count - present.count
    }
}

/// The spread of every measure over a corpus, the worst case and how many cases met every target.
public struct EvaluationSummary: Sendable, Hashable, Codable {
    public var cases: Int
    /// Cases that met every target.
    public var passed: Int
    /// Cases whose breaths were all found, one-to-one, and nothing else.
    public var breathsExact: Int
    public var coverage: Spread?
    public var medianErrorHz: Spread?
    public var p90ErrorHz: Spread?
    public var medianNominalErrorHz: Spread?
    /// Breaths found in exhalations without the device, over the corpus.
    public var plainExhalationBreaths: Int
    /// Huff coughs over the corpus: the sessions', those reported, and those matched one-to-one.
    public var huffsTrue: Int
    public var huffsFound: Int
    public var huffsMatched: Int
    public var plainExhalations: Int
    /// Exhalations without the device during which the check warned, by the first reason given.
    public var plainExhalationWarnings: [String: Int]
    /// Exhalations without the device in which the live gauge showed a pressure, over the corpus,
    /// and the seconds it showed one there.
    public var plainExhalationGauges: Int
    public var plainExhalationGaugeTime: Double
    public var grossErrors: Spread?
    /// Each case's share of pitches at twice or half the true rate, and the true breaths over the
    /// corpus reported mostly at the wrong octave (``EvaluationResult/breathsAtWrongOctave``).
    public var octaveErrors: Spread?
    public var breathsAtWrongOctave: Int
    public var breathsTrue: Int
    public var falseReports: Spread?
    /// Each case's median time from flutter onset to the gauge's first pitch, in seconds.
    public var gaugeDelay: Spread?
    /// Each case's median and largest error of a matched breath's start, in seconds
    /// (``EvaluationResult/medianStartError``).
    public var startError: Spread?
    public var worstStartError: Spread?
    /// Each case's share of live frames outside exhalations in which the gauge showed a pitch, and
    /// of the gauge's pitches during the flutter more than 20 % off.
    public var gaugeFalseReports: Spread?
    public var gaugeGrossErrors: Spread?
    /// The case that missed the most targets (the lowest coverage among equals).
    public var worstCase: String?
    /// Cases under 95 % coverage; those whose flutter time without a pitch the signal check gave
    /// any reason for, and a reason for at least half of it.
    public var underCoverage: Int
    public var underCoverageNamed: Int
    public var underCoverageMostlyNamed: Int
    /// Cases under 95 % coverage whose simulation drew a cause of lost coverage, and those of them
    /// for which the signal check gave a drawn cause as a reason for some of their unmeasured flutter.
    public var underCoverageWithDrawnCause: Int
    public var underCoverageDrawnCauseGiven: Int
    /// Cases under 95 % coverage that a drawn cause cost it (``EvaluationResult/costlyCauses``),
    /// and those of them for which the check gave such a cause as a reason.
    public var underCoverageCostlyCause: Int
    public var underCoverageCostlyCauseGiven: Int
    /// Cases that met every target in which the signal check warned during the flutter (false
    /// alarms).
    public var metButWarned: Int
    /// Cases that met every target in which the signal check raised a warning during the flutter
    /// (not merely held one from a sound before the breath).
    public var metButRaised: Int

    public init(_ results: [EvaluationResult]) {
        cases = results.count
        passed = results.filter(\.passed).count
        breathsExact = results.filter { $0.breathsMatched == $0.breathsTrue && $0.breathsFound == $0.breathsTrue }.count
        coverage = Spread(results.map { ($0.name, $0.breathsTrue > 0 ? $0.coverage : nil) }, higherIsBetter: true)
        medianErrorHz = Spread(results.map { ($0.name, $0.medianErrorHz) }, higherIsBetter: false)
        p90ErrorHz = Spread(results.map { ($0.name, $0.p90ErrorHz) }, higherIsBetter: false)
        medianNominalErrorHz = Spread(results.map { ($0.name, $0.medianNominalErrorHz) }, higherIsBetter: false)
        plainExhalations = results.reduce(0) { $0 + $1.plainExhalations }
        plainExhalationBreaths = results.reduce(0) { $0 + $1.plainExhalationBreaths }
        huffsTrue = results.reduce(0) { $0 + $1.huffsTrue }
        huffsFound = results.reduce(0) { $0 + $1.huffsFound }
        huffsMatched = results.reduce(0) { $0 + $1.huffsMatched }
        plainExhalationWarnings = results.reduce(into: [:]) { counts, result in
            counts.merge(result.plainExhalationWarnings, uniquingKeysWith: +)
        }
        plainExhalationGauges = results.reduce(0) { $0 + $1.plainExhalationGauges }
        plainExhalationGaugeTime = results.reduce(0) { $0 + $1.plainExhalationGaugeTime }
        grossErrors = Spread(results.map { ($0.name, $0.grossErrors) }, higherIsBetter: false)
        octaveErrors = Spread(results.map { ($0.name, $0.octaveErrors) }, higherIsBetter: false)
        breathsAtWrongOctave = results.reduce(0) { $0 + $1.breathsAtWrongOctave }
        breathsTrue = results.reduce(0) { $0 + $1.breathsTrue }
        falseReports = Spread(results.map { ($0.name, $0.falseReports) }, higherIsBetter: false)
        gaugeDelay = Spread(results.map { ($0.name, $0.gaugeDelay) }, higherIsBetter: false)
        startError = Spread(results.map { ($0.name, $0.medianStartError) }, higherIsBetter: false)
        worstStartError = Spread(results.map { ($0.name, $0.worstStartError) }, higherIsBetter: false)
        gaugeFalseReports = Spread(results.map { ($0.name, $0.gaugeFalseReports) }, higherIsBetter: false)
        gaugeGrossErrors = Spread(results.map { ($0.name, $0.gaugeGrossErrors) }, higherIsBetter: false)
        worstCase = results.max { a, b in
            (a.misses.count, -a.coverage) < (b.misses.count, -b.coverage)
        }?.name
        let under = results.filter { $0.breathsTrue > 0 && $0.coverage < EvaluationTargets().coverage }
        let named = under.map { $0.unmeasuredFlutter.named / max($0.unmeasuredFlutter.total, 1e-9) }
        underCoverage = under.count
        underCoverageNamed = named.filter { $0 > 0 }.count
        underCoverageMostlyNamed = named.filter { $0 >= 0.5 }.count
        let drawn = under.filter { !$0.drawnCauses.isEmpty }
        underCoverageWithDrawnCause = drawn.count
        underCoverageDrawnCauseGiven = drawn.filter { r in r.drawnCauses.contains { r.unmeasuredFlutter.time($0) > 0 } }.count
        let costly = under.filter { !$0.costlyCauses.isEmpty }
        underCoverageCostlyCause = costly.count
        underCoverageCostlyCauseGiven = costly.filter { r in r.costlyCauses.contains { r.unmeasuredFlutter.time($0) > 0 } }.count
        metButWarned = results.filter { $0.passed && !$0.warningsDuringFlutter.isEmpty }.count
        metButRaised = results.filter { $0.passed && !$0.warningsRaisedDuringFlutter.isEmpty }.count
    }
}
