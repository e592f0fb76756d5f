import XCTest
@testable import OPEPSimulation

/// The valve stands open for its duty of each cycle, and nothing of the jet passes while it is
/// closed.
final class ValveGateTests: XCTestCase {
    func testTheValveIsOpenForItsDutyAndClosedOtherwise() {
        for duty in [0.3, 0.5, 0.7] {
            let wave = ValveGate(duty: duty).wave
            let points = 10_000
            let values = (0..<points).map { wave.value(at: Double($0) / Double(points)) }
            let open = Double(values.filter { $0 > 0 }.count) / Double(points)
            XCTAssertEqual(open, duty, accuracy: 0.002, "duty \(duty)")
            XCTAssertEqual(values.max() ?? 0, 1, accuracy: 1e-6, "fully open at the top of the swing")
            XCTAssertEqual(values.min() ?? 1, 0, "closed: no jet")
            // Open at a quarter cycle (the lever's highest lift), closed at three quarters.
            XCTAssertEqual(wave.value(at: 0.25), 1, accuracy: 1e-6)
            XCTAssertEqual(wave.value(at: 0.75), 0)
        }
    }
}
