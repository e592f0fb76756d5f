import XCTest
@testable import OPEPKit

final class CentredPitchAverageTests: XCTestCase {
    private let average = CentredPitchAverage(halfWidth: 0.1, frameInterval: 0.01, consistency: 0.12)

    private func averaged(_ pitches: [Double?], at index: Int) -> Double? {
        average.pitch(at: index) { pitches.indices.contains($0) ? pitches[$0] : nil }
    }

    func testHalfWidthIsInFrames() {
        XCTAssertEqual(average.halfWidth, 10)
        XCTAssertEqual(CentredPitchAverage(halfWidth: 0, frameInterval: 0.01, consistency: 0.12).halfWidth, 0)
        XCTAssertEqual(CentredPitchAverage(halfWidth: 0.05, frameInterval: 0.0102, consistency: 0.12).halfWidth, 5)
    }

    func testAStraightRampKeepsItsValueAndNoiseAverages() {
        let ramp = (0..<40).map { Double?(20 + 0.05 * Double($0)) }
        for index in 10..<30 { XCTAssertEqual(averaged(ramp, at: index)!, ramp[index]!, accuracy: 1e-12) }
        let alternating = (0..<40).map { Double?($0 % 2 == 0 ? 20.5 : 19.5) }
        XCTAssertEqual(averaged(alternating, at: 20)!, 20 + 0.5 / 21, accuracy: 1e-12)
    }

    func testItStaysCentredWhereTheTrackEndsOnOneSide() {
        let track: [Double?] = (0..<30).map { index -> Double? in 20 + 0.01 * Double(index) }
        let pitches: [Double?] = Array(repeating: nil, count: 3) + track
        XCTAssertEqual(averaged(pitches, at: 5)!, pitches[5]!, accuracy: 1e-12, "two frames either side, then a gap")
        XCTAssertEqual(averaged(pitches, at: 3), pitches[3], "the track's first frame")
        XCTAssertEqual(averaged(pitches, at: 32), pitches[32], "the last frame there is")
        XCTAssertNil(averaged(pitches, at: 1))
    }

    func testAJumpToAnotherPeriodEndsTheAverage() {
        let pitches: [Double?] = Array(repeating: 20, count: 15) + Array(repeating: 30, count: 15)
        XCTAssertEqual(averaged(pitches, at: 12), 20, "frames 13 and 14 agree, 15 does not")
        XCTAssertEqual(averaged(pitches, at: 15), 30)
        var outlier = pitches
        outlier[6] = 21
        XCTAssertEqual(averaged(outlier, at: 5)!, 20 + 1.0 / 11, accuracy: 1e-12, "within 12 % it joins; frame 0 is the last pair")
    }
}
