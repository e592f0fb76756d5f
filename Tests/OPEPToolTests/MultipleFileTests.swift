import Foundation
import XCTest

final class MultipleFileTests: XCTestCase {
    func testJSONPrintsOneObjectPerLine() throws {
        let directory = try TemporaryDirectory()
        let first = try simulateSession(in: directory, name: "a", seed: 1)
        let second = try simulateSession(in: directory, name: "b", seed: 2)

        let result = try run(["analyze", first.wav, second.wav, "--format", "json"])

        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = nonEmptyLines(result.stdout)
        XCTAssertEqual(lines.count, 2, result.stdout)
        let reports = try lines.map(AnalysisReport.init(json:))
        XCTAssertEqual(reports.map(\.settings.file), [first.wav, second.wav])
        XCTAssertEqual(reports.map(\.summary.breaths), [first.truth.breaths.count, second.truth.breaths.count])
    }

    func testFramesOfSeveralRecordingsNeedAnOutputFolder() throws {
        let directory = try TemporaryDirectory()
        let first = try simulateSession(in: directory, name: "a", seed: 1)
        let second = try simulateSession(in: directory, name: "b", seed: 2)

        let result = try run(["analyze", first.wav, second.wav, "--format", "csv"])

        XCTAssertNotEqual(result.status, 0)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(firstLine(result.stderr).contains("--output-dir"), result.stderr)
    }

    func testOutputFolderGetsOneFramesFilePerRecording() throws {
        let directory = try TemporaryDirectory()
        let first = try simulateSession(in: directory, name: "a", seed: 1)
        let second = try simulateSession(in: directory, name: "b", seed: 2)
        let folder = directory.path("frames")

        let result = try run(["analyze", first.wav, second.wav, "--format", "csv", "--output-dir", folder])

        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["a.csv", "b.csv"])
        for (name, session) in [("a.csv", first), ("b.csv", second)] {
            let alone = try run(["analyze", session.wav, "--format", "csv"])
            XCTAssertEqual(try String(contentsOfFile: directory.path("frames/\(name)"), encoding: .utf8), alone.stdout, name)
        }
    }

    /// Two recordings with the same name in different folders must not share one report file.
    func testOutputFolderKeepsReportsOfSameNamedRecordings() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("monday"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.path("tuesday"), withIntermediateDirectories: true)
        let monday = try simulateSession(in: directory, name: "monday/session", seed: 1)
        let tuesday = try simulateSession(in: directory, name: "tuesday/session", seed: 2)
        let folder = directory.path("reports")

        let result = try run(["analyze", monday.wav, tuesday.wav, "--format", "json", "--output-dir", folder])

        let reports = try FileManager.default.contentsOfDirectory(atPath: folder)
        XCTAssertTrue(
            result.status != 0 || reports.count == 2,
            "exit status \(result.status) and only \(reports) written: the second report replaced the first")
    }

    func testAGoodRecordingIsReportedBesideABadOne() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)
        let missing = directory.path("missing.wav")

        for format in ["text", "json"] {
            let result = try run(["analyze", session.wav, missing, "--format", format])

            XCTAssertNotEqual(result.status, 0, format)
            XCTAssertEqual(nonEmptyLines(result.stderr), ["opep: error: \(missing): file not found"], format)
            XCTAssertTrue(result.stdout.hasPrefix(format == "json" ? "{" : "\(session.wav): WAV"), format)
            XCTAssertTrue(result.stdout.contains(format == "json" ? "\"breaths\":3" : "3 breaths in 1 set,"), result.stdout)
        }
    }

    /// The blank line separates reports; when the first recording fails there is nothing to separate.
    func testTextReportAfterAFailedRecordingStartsAtTheTop() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)

        let result = try run(["analyze", directory.path("missing.wav"), session.wav])

        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stdout.hasPrefix("\(session.wav): WAV"), "report starts with \(firstLine(result.stdout).debugDescription)")
    }
}
