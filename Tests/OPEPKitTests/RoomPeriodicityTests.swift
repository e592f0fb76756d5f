import XCTest
@testable import OPEPKit

final class RoomPeriodicityTests: XCTestCase {
    private let fan = FlutterPitchTracker.RoomPeriod(pitch: 14, modulation: 0.2)

    func testAPitchAtTheRoomsPeriodAndNoDeeperIsTheRooms() {
        XCTAssertTrue(RoomPeriodicity.explains(pitch: 14.5, modulation: 0.25, room: fan, consistency: 0.12))
        XCTAssertTrue(RoomPeriodicity.explains(pitch: 12.4, modulation: 0.1, room: fan, consistency: 0.12))
    }

    func testAnotherPitchADeeperSoundOrNoRoomPeriodIsNot() {
        XCTAssertFalse(RoomPeriodicity.explains(pitch: 16, modulation: 0.2, room: fan, consistency: 0.12), "another period")
        XCTAssertFalse(RoomPeriodicity.explains(pitch: 14, modulation: 0.31, room: fan, consistency: 0.12), "over 1.5 times as deep")
        XCTAssertFalse(RoomPeriodicity.explains(pitch: 14, modulation: 0.1, room: nil, consistency: 0.12), "a room without a period")
        XCTAssertFalse(RoomPeriodicity.explains(pitch: nil, modulation: 0.1, room: fan, consistency: 0.12), "no pitch")
    }
}
