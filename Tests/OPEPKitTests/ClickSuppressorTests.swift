import Foundation
import XCTest
@testable import OPEPKit

/// The click suppressor against a plain reference (each sample against the median of its
/// neighbourhood, sorted), in any blocks, and on the shapes it must leave alone.
final class ClickSuppressorTests: XCTestCase {
    /// `x` through the reference: each sample from the `2h`-th on, replaced by the median of itself
    /// and the `2h` before it when that median is under `1 / rise` of it and no sample from
    /// `recurrence` to `2h + 1` samples before it reaches `1 / rise` of it.
    private func reference(_ x: [Float], halfWidth h: Int, recurrence: Int, riseDB: Double) -> [Float] {
        let fraction = Float(pow(10, -riseDB / 10))
        return x.indices.map { n in
            guard n >= 2 * h else { return x[n] }
            let median = ((n - 2 * h)...n).map { x[$0] }.sorted()[h]
            let recurs = stride(from: max(0, n - recurrence), to: n - 2 * h, by: 1).contains { x[$0] >= x[n] * fraction }
            return median < x[n] * fraction && !recurs ? median : x[n]
        }
    }

    private func suppressed(_ x: [Float], suppressor: ClickSuppressor, block: Int) -> [Float] {
        var suppressor = suppressor
        var out: [Float] = [], buffer = [Float](repeating: 0, count: block)
        for start in stride(from: 0, to: x.count, by: block) {
            let count = min(block, x.count - start)
            for i in 0..<count { buffer[i] = x[start + i] }
            buffer.withUnsafeMutableBufferPointer { suppressor.process($0.baseAddress!, count: count) }
            out += buffer[0..<count]
        }
        return out
    }

    func testMatchesTheReferenceInAnyBlocks() {
        var random = SeededGenerator(seed: 17)
        let x = (0..<4000).map { i -> Float in
            let noise = Float(-log(max(1e-12, Double(random.next() % 1_000_000) / 1_000_000)))
            return i % 97 == 0 || i % 211 == 1 ? 100 * noise : noise
        }
        for (rate, recurrence) in [(490.0, 0.0), (980, 0), (490, 0.1), (980, 0.1)] {
            let suppressor = ClickSuppressor(sampleRate: rate, recurrence: recurrence, maximumBlock: 500)
            XCTAssertEqual(suppressor.halfWidth, rate == 490 ? 2 : 3)
            let expected = reference(x, halfWidth: suppressor.halfWidth, recurrence: suppressor.recurrence, riseDB: ClickSuppressor.riseDB)
            XCTAssertNotEqual(expected, x, "some samples replaced")
            for block in [1, 3, 64, 500] {
                XCTAssertEqual(suppressed(x, suppressor: suppressor, block: block), expected, "\(rate) Hz, \(recurrence) s, blocks of \(block)")
            }
        }
    }

    /// A flutter passes bit for bit but for at most `h` samples where it leaps up from the room,
    /// and those only lowered; clicks of one and two samples are replaced by the level before
    /// them; clicks that recur as loud within the longest period (a rocker's, a buzz's edges) are
    /// kept after the first.
    func testClicksAreReplacedAndTheFlutterPassesUnchanged() {
        let rate = 490.0, ramp = 10
        let suppressor = ClickSuppressor(sampleRate: rate, recurrence: 0.1, maximumBlock: 256)
        let h = suppressor.halfWidth
        let flutter = (0..<1000).map { n -> Float in
            guard n >= 200, n < 800 else { return 0.01 }
            let pulse = 1 + 0.8 * cos(2 * Double.pi * 40 * Double(n) / rate)
            let fade = Double(min(n - 200, 799 - n, ramp)) / Double(ramp)
            return Float(max(0.01, fade * fade * pulse * pulse))
        }
        let passed = suppressed(flutter, suppressor: suppressor, block: 77)
        let changed = flutter.indices.filter { passed[$0] != flutter[$0] }
        XCTAssertLessThanOrEqual(changed.count, h, "changed: \(changed)")
        for n in changed { XCTAssertTrue(n > 200 && n < 200 + ramp && passed[n] < flutter[n], "sample \(n)") }
        var clicked = flutter
        clicked[100] = 1
        clicked[150] = 1
        clicked[151] = 0.8
        clicked[500] += 200
        let out = suppressed(clicked, suppressor: suppressor, block: 77)
        XCTAssertEqual(out[100], 0.01)
        XCTAssertEqual(out[150], 0.01)
        XCTAssertEqual(out[151], 0.01)
        XCTAssertLessThan(out[500], 4.0)
        for n in flutter.indices where ![100, 150, 151, 500].contains(n) { XCTAssertEqual(out[n], passed[n], "sample \(n)") }
        var train = [Float](repeating: 0.01, count: 300)
        for n in stride(from: 20, to: 300, by: 20) { train[n] = 1 }
        let heard = suppressed(train, suppressor: suppressor, block: 64)
        XCTAssertEqual(heard[20], 0.01, "the train's first click")
        XCTAssertEqual(Array(heard[21...]), Array(train[21...]), "the clicks that follow within 0.1 s")
    }

    func testNoWidthPassesTheSignalThrough() {
        let x: [Float] = [0, 1, 100, 1, 0, 1000, 0]
        let suppressor = ClickSuppressor(sampleRate: 490, longestClick: 0, recurrence: 0.1, maximumBlock: 8)
        XCTAssertEqual(suppressor.halfWidth, 0)
        XCTAssertEqual(suppressed(x, suppressor: suppressor, block: 3), x)
    }
}
