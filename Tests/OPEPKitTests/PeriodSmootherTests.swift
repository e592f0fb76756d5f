import XCTest
@testable import OPEPKit

final class PeriodSmootherTests: XCTestCase {
    private let settings = PeriodSmoother.Settings(
        decayRate: 0.8, maxRunLength: 10, tolerance: 0.12, reacquireCount: 3, dropCount: 31, reportRunLength: 10)

    /// The number (from 1) of the first estimate reported, feeding `periods` in order (nil a miss).
    private func firstReport(_ periods: [Double?]) -> Int? {
        var smoother = PeriodSmoother(settings: settings)
        for (offset, period) in periods.enumerated() where smoother.update(accepted: period) != nil {
            return offset + 1
        }
        return nil
    }

    func testARunIsReportedOnceItIsLongEnough() {
        let agreeing = (0..<12).map { 50 + Double($0 % 3) * 0.2 }
        XCTAssertEqual(firstReport(agreeing), 10)
        XCTAssertNil(firstReport(Array(agreeing.prefix(9))))
        XCTAssertEqual(firstReport(Array(agreeing.prefix(4)) + [nil] + agreeing), 12, "a miss shortens the run by one")
        XCTAssertEqual(firstReport(Array(agreeing.prefix(4)) + [70] + agreeing), 15, "an outlier starts the run again")
    }

    func testThreeAgreeingOutliersStartANewAverage() {
        var smoother = PeriodSmoother(settings: settings)
        for _ in 0..<10 { _ = smoother.update(accepted: 50) }
        for _ in 0..<3 { XCTAssertEqual(smoother.update(accepted: 70), nil) }
        XCTAssertEqual(smoother.average, 70)
        XCTAssertEqual(smoother.runLength, 1)
    }
}
