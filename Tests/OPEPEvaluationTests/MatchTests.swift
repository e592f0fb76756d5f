import XCTest
@testable import OPEPEvaluation
@testable import OPEPKit
@testable import OPEPSimulation

/// `Evaluator.match` pairs found and true breaths one-to-one by overlap, in time order.
final class MatchTests: XCTestCase {
    func testEveryBreathFound() {
        let found = [foundBreath(0.2, 2.9), foundBreath(10.1, 13.2), foundBreath(19.8, 22.5)]

        let matching = Evaluator.match(found: found, truth: threeTrueBreaths)

        XCTAssertEqual(matching.pairs, 3)
        XCTAssertEqual(matching.missed, [])
        XCTAssertEqual(matching.extra, [])
        XCTAssertEqual(matching.startDifferences.count, 3)
        for (found, expected) in zip(matching.startDifferences, [0.2, 0.1, -0.2]) { XCTAssertEqual(found, expected, accuracy: 1e-9) }
    }

    func testMissedBreath() {
        let found = [foundBreath(0.2, 2.9), foundBreath(19.8, 22.5)]

        let matching = Evaluator.match(found: found, truth: threeTrueBreaths)

        XCTAssertEqual(matching.pairs, 2)
        XCTAssertEqual(matching.missed, [10])
        XCTAssertEqual(matching.extra, [])
    }

    func testExtraBreathsBetweenBeforeAndAfter() {
        let found = [
            foundBreath(-2, -1), foundBreath(0.2, 2.9), foundBreath(5, 6), foundBreath(10.1, 13.2),
            foundBreath(19.8, 22.5), foundBreath(25, 26),
        ]

        let matching = Evaluator.match(found: found, truth: threeTrueBreaths)

        XCTAssertEqual(matching.pairs, 3)
        XCTAssertEqual(matching.missed, [])
        XCTAssertEqual(matching.extra, [-2, 5, 25])
    }

    func testOneFoundBreathSpanningTwoTrueOnesMatchesOnlyTheFirst() {
        let found = [foundBreath(0.2, 12), foundBreath(19.8, 22.5)]

        let matching = Evaluator.match(found: found, truth: threeTrueBreaths)

        XCTAssertEqual(matching.pairs, 2)
        XCTAssertEqual(matching.missed, [10])
        XCTAssertEqual(matching.extra, [])
    }

    func testATrueBreathSplitInTwoCountsTheSecondHalfAsExtra() {
        let found = [foundBreath(0.2, 1.4), foundBreath(1.6, 2.9), foundBreath(10.1, 13.2), foundBreath(19.8, 22.5)]

        let matching = Evaluator.match(found: found, truth: threeTrueBreaths)

        XCTAssertEqual(matching.pairs, 3)
        XCTAssertEqual(matching.missed, [])
        XCTAssertEqual(matching.extra, [1.6])
    }

    func testNothingFoundOrNothingTrue() {
        let nothingFound = Evaluator.match(found: [], truth: threeTrueBreaths)
        XCTAssertEqual(nothingFound.pairs, 0)
        XCTAssertEqual(nothingFound.missed, [0, 10, 20])
        XCTAssertEqual(nothingFound.extra, [])

        let nothingTrue = Evaluator.match(found: [foundBreath(1, 2), foundBreath(4, 5)], truth: [])
        XCTAssertEqual(nothingTrue.pairs, 0)
        XCTAssertEqual(nothingTrue.missed, [])
        XCTAssertEqual(nothingTrue.extra, [1, 4])

        let neither = Evaluator.match(found: [], truth: [])
        XCTAssertEqual(neither.pairs, 0)
        XCTAssertEqual(neither.missed, [])
        XCTAssertEqual(neither.extra, [])
    }

    func testHandMadeBreathsHaveTheirTimes() {
        XCTAssertEqual(threeTrueBreaths.map(\.start), [0, 10, 20])
        XCTAssertEqual(threeTrueBreaths.map(\.end), [3, 13, 23])
        XCTAssertEqual(foundBreath(1, 2.5).duration, 1.5)
    }
}
