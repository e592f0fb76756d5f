import Foundation
import XCTest

/// The same session in other containers and encodings, and as raw PCM on standard input, must
/// give the same breaths.
final class FormatTests: XCTestCase {
    func testAIFF() throws {
        try assertSameBreaths(as: "session.aiff", tool: "sox") { input, output in [input, output] }
    }

    func testCAF() throws {
        try assertSameBreaths(as: "session.caf", tool: "ffmpeg") { input, output in ["-loglevel", "error", "-i", input, "-f", "caf", output] }
    }

    func testWAV24Bit() throws {
        try assertSameBreaths(as: "session-24.wav", tool: "sox") { input, output in [input, "-b", "24", output] }
    }

    func testWAVFloat() throws {
        try assertSameBreaths(as: "session-float.wav", tool: "sox") { input, output in [input, "-e", "floating-point", "-b", "32", output] }
    }

    func testWAVStereo() throws {
        try assertSameBreaths(as: "session-stereo.wav", tool: "sox") { input, output in [input, "-c", "2", output] }
    }

    func testFLAC() throws {
        try assertSameBreaths(as: "session.flac", tool: "ffmpeg") { input, output in ["-loglevel", "error", "-i", input, output] }
    }

    func testM4A() throws {
        try assertSameBreaths(as: "session.m4a", tool: "ffmpeg") { input, output in ["-loglevel", "error", "-i", input, output] }
    }

    func testMP3() throws {
        try assertSameBreaths(as: "session.mp3", tool: "ffmpeg") { input, output in ["-loglevel", "error", "-i", input, output] }
    }

    func testRawPCMOnStandardInput() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)
        let samples = try tool("sox", [session.wav, "-t", "raw", "-e", "floating-point", "-b", "32", "-L", "-"])
        XCTAssertEqual(Double(samples.count) / 4 / 16000, session.truth.duration, accuracy: 0.01)

        let result = try run(["analyze", "-", "--sample-rate", "16000", "--encoding", "f32le", "--format", "json"], stdin: samples)

        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try AnalysisReport(json: result.stdout)
        XCTAssertEqual(report.settings.file, "-")
        XCTAssertEqual(report.summary.breaths, session.truth.breaths.count)
        XCTAssertEqual(report.summary.breaths, try analyze(session.wav).summary.breaths)
    }

    /// Converts the simulated session into the file `name` by running `converter` with the
    /// arguments `arguments(input, output)` returns, and checks that the copy gives the truth's
    /// breaths at the original's times and pressures.
    private func assertSameBreaths(
        as name: String, tool converter: String, file: StaticString = #filePath, line: UInt = #line,
        _ arguments: (_ input: String, _ output: String) -> [String]
    ) throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)
        let copy = directory.path(name)
        try tool(converter, arguments(session.wav, copy))

        let original = try analyze(session.wav)
        let converted = try analyze(copy)

        XCTAssertEqual(original.summary.breaths, session.truth.breaths.count, file: file, line: line)
        XCTAssertEqual(converted.summary.breaths, session.truth.breaths.count, file: file, line: line)
        XCTAssertEqual(converted.summary.sets, session.truth.setCount, file: file, line: line)
        for (copied, first) in zip(converted.breaths, original.breaths) {
            XCTAssertEqual(copied.start, first.start, accuracy: 0.1, file: file, line: line)
            XCTAssertEqual(try XCTUnwrap(copied.meanPressure), try XCTUnwrap(first.meanPressure), accuracy: 0.5, file: file, line: line)
        }
    }

    private func analyze(_ path: String) throws -> AnalysisReport {
        let result = try run(["analyze", path, "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try AnalysisReport(json: result.stdout)
    }
}
