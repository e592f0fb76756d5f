import XCTest
@testable import OPEPEvaluation

/// `quantile` picks by nearest rank: the smallest value with at least a share p of values at or below it.
final class QuantileTests: XCTestCase {
    func testNoValues() {
        XCTAssertNil(quantile([], 0.5))
    }

    func testOneValue() {
        for p in [0, 0.5, 0.9, 1] {
            XCTAssertEqual(quantile([7], p), 7)
        }
    }

    func testEndsAreTheSmallestAndLargest() {
        let values = [4.0, 1, 3, 2]
        XCTAssertEqual(quantile(values, 0), 1)
        XCTAssertEqual(quantile(values, 1), 4)
    }

    func testNearestRank() {
        let values = (1...10).reversed().map(Double.init)
        XCTAssertEqual(quantile(values, 0.5), 5)
        XCTAssertEqual(quantile(values, 0.9), 9)
        XCTAssertEqual(quantile(values, 0.91), 10)
        XCTAssertEqual(quantile(values, 0.05), 1)
        XCTAssertEqual(quantile(values, 0.11), 2)
        XCTAssertEqual(quantile([1, 2, 3, 4], 0.5), 2)
        XCTAssertEqual(quantile([1, 2, 3], 0.5), 2)
    }

    func testExactRanksAreNotRoundedUp() {
        for count in 1...200 {
            let values = (1...count).map(Double.init)
            for percent in [10, 25, 50, 75, 90] where count * percent % 100 == 0 {
                XCTAssertEqual(quantile(values, Double(percent) / 100), Double(count * percent / 100), "p\(percent) of \(count)")
            }
        }
    }

    func testShareOutsideZeroToOneClamps() {
        XCTAssertEqual(quantile([1, 2, 3], -0.5), 1)
        XCTAssertEqual(quantile([1, 2, 3], 1.5), 3)
    }

    func testDuplicates() {
        XCTAssertEqual(quantile([2, 2, 2, 5], 0.75), 2)
        XCTAssertEqual(quantile([2, 2, 2, 5], 0.76), 5)
    }
}
