import XCTest
@testable import OPEPKit

/// The period evidence: a correlation that persists at one lag outgrows chance peaks that move.
final class PeriodEvidenceTests: XCTestCase {
    private let lags = 24...103
    /// The tracker's acquisition interval and default memory.
    private let interval = 0.04, memory = 0.15

    /// Each span: 0.45 at lag 50 (a shallow flutter), a chance peak of 0.7 at a lag that moves,
    /// and noise everywhere; single spans see the chance peak first, the evidence the flutter.
    func testAPersistentPeriodOutgrowsMovingChancePeaks() {
        var evidence = PeriodEvidence(lagRange: lags, interval: interval, timeConstant: memory)
        var rng = SeededGenerator(seed: 7)
        var singleSpanWins = 0
        for _ in 0..<25 {
            let chance = Int.random(in: 30...100, using: &rng)
            var curve = [Double](repeating: 0, count: 200)
            for lag in lags { curve[lag] = 0.15 * rng.gaussian() }
            for lag in 46...54 { curve[lag] += 0.45 * (1 - Double(abs(lag - 50)) / 5) }
            if abs(chance - 50) > 6 {
                for lag in (chance - 3)...(chance + 3) { curve[lag] = max(curve[lag], 0.7 * (1 - Double(abs(lag - chance)) / 4)) }
            }
            if let best = lags.max(by: { curve[$0] < curve[$1] }), abs(best - 50) > 2 { singleSpanWins += 1 }
            evidence.update { curve[$0] }
        }
        XCTAssertGreaterThan(singleSpanWins, 15, "the chance peaks should dominate single spans")
        let found = try? XCTUnwrap(evidence.strongest())
        XCTAssertEqual(found?.period ?? 0, 50, accuracy: 1)
        XCTAssertGreaterThan(found?.correlation ?? 0, 0.35)
        for lag in lags where abs(lag - 50) > 4 {
            XCTAssertLessThan(evidence.value(at: Double(lag)), 0.3, "lag \(lag)")
        }
    }

    func testTheShortestStrongPeakWinsAndTheEvidenceFades() {
        var evidence = PeriodEvidence(lagRange: lags, interval: interval, timeConstant: memory)
        for _ in 0..<30 {
            evidence.update { lag in max(0, 0.5 - Double(abs(lag - 40)) / 10, 0.55 - Double(abs(lag - 80)) / 10) }
        }
        XCTAssertEqual(evidence.strongest()?.period ?? 0, 40, accuracy: 0.01, "a half-rate peak must not win")
        let before = evidence.value(at: 40)
        for _ in 0..<25 { evidence.decay() }
        XCTAssertEqual(evidence.value(at: 40), before * exp(-1.0 / memory), accuracy: 1e-9, "1 s of silence")
        evidence.reset()
        XCTAssertNil(evidence.strongest())
    }
}
