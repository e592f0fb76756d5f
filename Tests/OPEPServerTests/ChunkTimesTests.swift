import XCTest

@testable import OPEPServer

final class ChunkTimesTests: XCTestCase {
    /// Quantiles against a plain sort of the same times (to the histogram's resolution).
    func testQuantilesMatchASortedList() {
        var state: UInt64 = 0x5EED
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        let times = ChunkTimes()
        var list: [Double] = []
        for _ in 0..<10_000 {
            let milliseconds = 0.2 + 3 * next() * next()
            list.append(milliseconds)
            times.record(.nanoseconds(Int64(milliseconds * 1e6)))
        }
        times.record(.seconds(5))
        list.append(5000)
        list.sort()
        let summary = times.summary
        XCTAssertEqual(summary.chunks, 10_001)
        func reference(_ q: Double) -> Double { list[Int((Double(list.count) * q).rounded(.up)) - 1] }
        XCTAssertEqual(try XCTUnwrap(summary.p50Milliseconds), reference(0.5), accuracy: ChunkTimes.resolutionMilliseconds)
        XCTAssertEqual(try XCTUnwrap(summary.p90Milliseconds), reference(0.9), accuracy: ChunkTimes.resolutionMilliseconds)
        XCTAssertEqual(try XCTUnwrap(summary.p99Milliseconds), reference(0.99), accuracy: ChunkTimes.resolutionMilliseconds)
        XCTAssertEqual(try XCTUnwrap(summary.maxMilliseconds), 5000, accuracy: 1e-9, "a time beyond the range keeps its exact maximum")
    }

    func testNoChunkNoQuantiles() {
        XCTAssertEqual(ChunkTimes().summary, ChunkTimes.Summary(chunks: 0))
    }
}
