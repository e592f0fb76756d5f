import XCTest
@testable import OPEPKit

final class NoiseFloorTests: XCTestCase {
    /// The followed percentile equals a plain sort of the window after every update, for levels
    /// that wander, jump and get frozen, over several windows.
    func testPercentileMatchesSortedWindow() {
        var rng = SeededGenerator(seed: 7)
        for windowFrames in [1, 7, 500] {
            var floor = NoiseFloor(fixedLevel: nil, percentile: 0.2, windowFrames: windowFrames)
            var window: [Double] = []
            var level = -70.0
            for step in 0..<5000 {
                level += Double.random(in: -3...3, using: &rng)
                if step % 997 == 0 { level = Double.random(in: -150...10, using: &rng) }
                let frozen = step % 50 < 10
                floor.update(level, frozen: frozen)
                guard !frozen else { continue }
                let clamped = min(0, max(NoiseFloor.lowestLevel, level))
                window.append(NoiseFloor.lowestLevel + ((clamped - NoiseFloor.lowestLevel) / 0.5).rounded() * 0.5)
                if window.count > windowFrames { window.removeFirst() }
                let rank = max(1, Int((0.2 * Double(window.count)).rounded(.up)))
                XCTAssertEqual(floor.level, window.sorted()[rank - 1], "window \(windowFrames), step \(step)")
            }
        }
    }
}
