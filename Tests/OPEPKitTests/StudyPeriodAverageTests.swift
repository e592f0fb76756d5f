import XCTest
@testable import OPEPKit

/// The study's period average, checked step by step against its write-up.
final class StudyPeriodAverageTests: XCTestCase {
    func testRunGrowsToFiveAndTheMixFollowsTheRun() {
        var average = StudyPeriodAverage(decayRate: 0.8)
        XCTAssertEqual(average.maxRunLength, 5)
        XCTAssertEqual(average.update(accepted: 50), 50)
        XCTAssertEqual(average.runLength, 1)
        var expected = 50.0
        var change = 0.0
        for (step, period) in [50.5, 51.0, 51.5, 52.0, 52.5, 53.0].enumerated() {
            let run = min(5, step + 2)
            let mix = min(0.8, 1 - 1 / Double(run))
            let reported = average.update(accepted: period)
            change = change * mix + (period - expected) * (1 - mix)
            expected = expected * mix + period * (1 - mix)
            XCTAssertEqual(average.runLength, run, "step \(step)")
            XCTAssertEqual(reported ?? 0, expected, accuracy: 1e-12, "step \(step)")
            XCTAssertEqual(average.change, change, accuracy: 1e-12, "step \(step)")
        }
    }

    func testALeapShortensTheRunByItsLengthInSteps() {
        var average = StudyPeriodAverage(decayRate: 0.8)
        for _ in 0..<8 { _ = average.update(accepted: 40) }
        XCTAssertEqual(average.runLength, 5)
        let step = 0.025 * 40
        _ = average.update(accepted: 40 + 3.5 * step)
        XCTAssertEqual(average.runLength, 3, "5 - 3 steps + 1")
        var fresh = StudyPeriodAverage(decayRate: 0.8)
        for _ in 0..<8 { _ = fresh.update(accepted: 40) }
        let reported = fresh.update(accepted: 80)
        XCTAssertEqual(fresh.runLength, 1, "a leap of an octave starts the run again")
        XCTAssertEqual(reported ?? 0, 80, accuracy: 1e-12, "mix 0 at run 1: the new period is taken whole")
        XCTAssertEqual(fresh.change, 0, "a new run starts without the leap as its change")
        var steady = StudyPeriodAverage(decayRate: 0.8)
        for _ in 0..<8 { _ = steady.update(accepted: 40) }
        _ = steady.update(accepted: 40 + 0.9 * step)
        XCTAssertEqual(steady.runLength, 5, "a step within the accuracy does not shorten the run")
    }

    func testMissesShortenTheRunAndTheAverageIsReportedWhileItLasts() {
        var average = StudyPeriodAverage(decayRate: 0.8)
        for _ in 0..<3 { _ = average.update(accepted: 30) }
        XCTAssertEqual(average.runLength, 3)
        XCTAssertEqual(average.update(accepted: nil), 30)
        XCTAssertEqual(average.update(accepted: nil), 30)
        XCTAssertNil(average.update(accepted: nil), "the third miss ends a run of three")
        XCTAssertNil(average.average)
        XCTAssertEqual(average.update(accepted: 60), 60, "a new run starts from its first period")
    }

    func testOtherDecayRatesSetTheLongestRun() {
        XCTAssertEqual(StudyPeriodAverage(decayRate: 0.9).maxRunLength, 10)
        XCTAssertEqual(StudyPeriodAverage(decayRate: 0.5).maxRunLength, 2)
        XCTAssertEqual(StudyPeriodAverage(decayRate: 0).maxRunLength, 1)
    }
}
