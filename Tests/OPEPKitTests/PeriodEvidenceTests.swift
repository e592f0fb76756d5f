import Foundation
import XCTest
@testable import OPEPKit

/// The period evidence: the subsampled correlation against a plain reference, and a period that
/// persists outgrowing chance peaks that move.
final class PeriodEvidenceTests: XCTestCase {
    /// The tracker's span and band at 44.1 kHz (980 Hz envelope), acquisition interval and memory.
    private let spanLength = 245, periods = 24...103, step = 3, interval = 0.04, memory = 0.15
    private let octaveShare = FlutterPitchTracker.Configuration(sampleRate: 44100).octaveShare

    private func evidence() -> PeriodEvidence {
        PeriodEvidence(periods: periods, spanLength: spanLength, step: step, interval: interval, timeConstant: memory, octaveShare: octaveShare)
    }

    /// A smoothed envelope like the tracker's at a random phase.
    private func envelope(period: Double?, noise: Double, rng: inout SeededGenerator) -> [Float] {
        let phase = Double.random(in: 0..<(2 * Double.pi), using: &rng)
        return TestSignals.smoothedPulses(period: period, phase: phase, noise: noise, count: spanLength, rng: &rng).map(Float.init)
    }

    func testOneSpanMixesInThePlainCorrelationOfEveryThirdSample() {
        var rng = SeededGenerator(seed: 3)
        let x = envelope(period: 47.7, noise: 0.3, rng: &rng)
        var evidence = evidence()
        x.withUnsafeBufferPointer { evidence.update(span: $0.baseAddress!) }
        let subsampled = stride(from: 0, to: spanLength - step + 1, by: step).map { Double(x[$0]) }
        let share = 1 - exp(-interval / memory)
        for lag in evidence.lagRange {
            XCTAssertEqual(
                evidence.value(at: Double(lag * step)), share * TestSignals.pearson(subsampled, lag: lag), accuracy: 1e-6, "lag \(lag)")
        }
    }

    /// Each span: a shallow pulse train at 52.5 samples under smoothed noise that changes from
    /// span to span. Single spans often peak elsewhere; the evidence finds the period.
    func testAPersistentPeriodOutgrowsMovingChancePeaks() {
        var rng = SeededGenerator(seed: 11)
        var averaged = evidence()
        var singleSpansWrong = 0
        let spans = 25
        for _ in 0..<spans {
            let x = envelope(period: 52.5, noise: 2.0, rng: &rng)
            var single = PeriodEvidence(periods: periods, spanLength: spanLength, step: step, interval: interval, timeConstant: 1e-9, octaveShare: octaveShare)
            x.withUnsafeBufferPointer { span in
                single.update(span: span.baseAddress!)
                averaged.update(span: span.baseAddress!)
            }
            if abs((single.strongest()?.period ?? 0) - 52.5) > 4 { singleSpansWrong += 1 }
        }
        XCTAssertGreaterThan(singleSpansWrong, spans / 4, "the noise should mislead single spans")
        let found = averaged.strongest()
        XCTAssertEqual(found?.period ?? 0, 52.5, accuracy: 3)
        XCTAssertGreaterThan(found?.correlation ?? 0, 0.3)
    }

    func testTheShortestStrongPeakWinsAndTheEvidenceFades() {
        var rng = SeededGenerator(seed: 5)
        var evidence = evidence()
        for _ in 0..<30 {
            let x = envelope(period: 40, noise: 0.05, rng: &rng)
            x.withUnsafeBufferPointer { evidence.update(span: $0.baseAddress!) }
        }
        XCTAssertGreaterThan(evidence.value(at: 80), 0.5, "twice the period correlates as well")
        XCTAssertEqual(evidence.strongest()?.period ?? 0, 40, accuracy: 1.5, "a half-rate peak must not win")
        let before = evidence.value(at: 40)
        for _ in 0..<25 { evidence.decay() }
        XCTAssertEqual(evidence.value(at: 40), before * exp(-1.0 / memory), accuracy: 1e-9, "1 s of silence")
        evidence.reset()
        XCTAssertNil(evidence.strongest())
    }

    /// A room's own period, 40 samples: apart from it and its multiple at 80, nothing persists;
    /// a pulse train at 57 samples is found apart from 40 as it is without.
    func testThePeakApartFromAnExcludedPeriodAndItsMultiples() {
        let consistency = FlutterPitchTracker.Configuration(sampleRate: 44100).consistency
        var rng = SeededGenerator(seed: 8)
        for period in [40.0, 57] {
            var evidence = evidence()
            for _ in 0..<30 {
                let x = envelope(period: period, noise: 0.3, rng: &rng)
                x.withUnsafeBufferPointer { evidence.update(span: $0.baseAddress!) }
            }
            let strongest = evidence.strongest()
            XCTAssertEqual(strongest?.period ?? 0, period, accuracy: 1.5)
            XCTAssertGreaterThan(strongest?.correlation ?? 0, 0.6)
            let apart = evidence.strongest(apartFrom: 40, consistency: consistency)
            if period == 40 {
                XCTAssertLessThan(apart?.correlation ?? 0, 0.3, "the room's period and its multiples: \(String(describing: apart))")
            } else {
                XCTAssertEqual(apart, strongest, "a period not the room's")
            }
        }
    }
}
