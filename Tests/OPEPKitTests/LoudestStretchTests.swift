import XCTest
@testable import OPEPKit

final class LoudestStretchTests: XCTestCase {
    /// The stretch equals a plain scan of the levels kept in full, for random levels, ranges and
    /// margins, across the ring's wrap (frames older than `reach` left out).
    func testStretchMatchesAPlainScan() {
        var rng = SeededGenerator(seed: 11)
        for reach in [1, 5, 331] {
            var stretch = LoudestStretch(reach: reach)
            var levels: [Double] = []
            for _ in 0..<2_000 {
                let level = Double.random(in: -70 ... -10, using: &rng)
                stretch.record(level)
                levels.append(level)
                let newest = levels.count - 1
                let first = newest - Int.random(in: 0...(2 * reach), using: &rng)
                let last = newest - Int.random(in: 0...3, using: &rng)
                let margin = Double.random(in: 0.5...20, using: &rng)
                let held = Array(stride(from: max(first, levels.count - reach, 0), through: min(last, newest), by: 1))
                guard let found = stretch.stretch(from: first, through: last, marginDB: margin) else {
                    XCTAssertTrue(held.isEmpty, "nothing found in \(first)...\(last), reach \(reach)")
                    continue
                }
                let peak = held.map { levels[$0] }.max()!
                let near = held.filter { levels[$0] >= peak - margin }
                XCTAssertEqual(found.lowerBound, near.first)
                XCTAssertEqual(found.upperBound, near.last)
            }
        }
    }

    func testABurstIsItsOwnStretchAndASwayingSoundSpansIt() {
        var stretch = LoudestStretch(reach: 400)
        let speech = (0..<100).map { -30 - Double($0 % 7) }
        for level in speech + [Double](repeating: -15, count: 40) + speech { stretch.record(level) }
        let burst = stretch.stretch(from: 0, through: 239, marginDB: 6)
        XCTAssertEqual(burst, 100...139)
        XCTAssertEqual(stretch.stretch(from: 0, through: 99, marginDB: 6), 0...99,
                       "speech swaying 6 dB comes back near its loudest to its end")
        XCTAssertNil(LoudestStretch(reach: 10).stretch(from: 0, through: 5, marginDB: 6), "nothing recorded")
    }
}
