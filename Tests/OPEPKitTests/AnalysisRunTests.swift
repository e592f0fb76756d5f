import XCTest
@testable import OPEPKit

final class AnalysisRunTests: XCTestCase {
    private let session = TestSession(sampleRate: 16000, sets: 2, breathsPerSet: 2)

    /// The analyzer on its own, the whole recording in one chunk: the reference.
    private func reference() throws -> (outputs: [SessionOutput], report: SessionReport) {
        var analyzer = try SessionAnalyzer(configuration: .init(sampleRate: 16000))
        var outputs: [SessionOutput] = []
        analyzer.process(session.samples) { outputs.append($0) }
        let report = analyzer.finish { outputs.append($0) }
        return (outputs, report)
    }

    func testReadingInOddChunksGivesTheAnalyzersOutputsAndKeepsItsEvents() throws {
        let expected = try reference()
        for chunk in [1, 333, 4096, session.samples.count] {
            var run = try AnalysisRun(configuration: .init(sampleRate: 16000))
            var outputs: [SessionOutput] = []
            var start = 0
            let report = run.run(reading: { buffer in
                let end = min(session.samples.count, start + chunk)
                buffer.removeAll(keepingCapacity: true)
                buffer.append(contentsOf: session.samples[start..<end])
                defer { start = end }
                return end - start
            }, onOutput: { outputs.append($0) })
            XCTAssertEqual(outputs, expected.outputs, "chunks of \(chunk)")
            XCTAssertEqual(report, expected.report, "chunks of \(chunk)")
            let events = outputs.compactMap { output -> SessionEvent? in
                if case let .event(event) = output { return event } else { return nil }
            }
            XCTAssertEqual(run.events, events)
            XCTAssertEqual(run.events.filter { $0.kind == .breathEnded }.count, 4)
        }
    }

    func testReadsOnlyWhatTheReaderSaysItWrote() throws {
        let expected = try reference()
        var run = try AnalysisRun(configuration: .init(sampleRate: 16000))
        var start = 0
        let report = run.run(reading: { buffer in
            let end = min(session.samples.count, start + 1000)
            buffer = Array(session.samples[start..<end]) + [Float](repeating: 1, count: 24)
            defer { start = end }
            return end - start
        })
        XCTAssertEqual(report, expected.report)
    }

    func testAReaderThatFailsEndsTheRunWithItsError() throws {
        struct Unreadable: Error, Equatable {}
        var run = try AnalysisRun(configuration: .init(sampleRate: 16000))
        var calls = 0
        XCTAssertThrowsError(try run.run(reading: { (buffer: inout [Float]) throws(Unreadable) -> Int in
            calls += 1
            guard calls < 3 else { throw Unreadable() }
            buffer = [Float](repeating: 0, count: 1600)
            return 1600
        })) { XCTAssertEqual($0 as? Unreadable, Unreadable()) }
        XCTAssertEqual(run.report.summary.duration, 0.2, accuracy: 1e-9)
    }
}
