import Foundation
import XCTest

/// `demo`, `evaluate` and `benchmark`: the commands that simulate sessions themselves.
final class SessionCommandTests: XCTestCase {
    func testDemoMeasuresEveryTrueBreath() throws {
        let result = try run(["demo"] + SimulatedSession.smallOptions)

        XCTAssertEqual(result.status, 0, result.stderr)
        let comparison = try XCTUnwrap(nonEmptyLines(result.stdout).last)
        let pattern = #"^Ground truth: (\d+) breaths in (\d+) sets?, .*\. Measured: (\d+) breaths in (\d+) sets?"#
        let match = try XCTUnwrap(comparison.firstMatch(of: try Regex(pattern)), comparison)
        let numbers = (1...4).map { match.output[$0].substring.map { Int($0) } }
        XCTAssertEqual(numbers[0], 3, comparison)
        XCTAssertEqual(numbers[2], numbers[0], comparison)
        XCTAssertEqual(numbers[3], numbers[1], comparison)
    }

    func testDemoKeepsTheSessionWhenAsked() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.path("kept")

        let result = try run(["demo", "--keep", folder] + SimulatedSession.smallOptions)

        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted(),
            ["session.truth.csv", "session.truth.json", "session.wav"])
    }

    func testEvaluateMeetsTheTargetsOnOneCase() throws {
        let result = try run(["evaluate", "--filter", "room -25 dB, 16.0 kHz", "--format", "json", "--strict"])

        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["passed"] as? Int, 1)
        let cases = try XCTUnwrap(object["cases"] as? [[String: Any]])
        XCTAssertEqual(cases.count, 1)
        let only = cases[0]
        XCTAssertEqual(only["name"] as? String, "room -25 dB, 16.0 kHz")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(only["coverage"] as? Double), 0.95)
        XCTAssertLessThanOrEqual(try XCTUnwrap(only["median_error_hz"] as? Double), 0.15)
        XCTAssertLessThanOrEqual(try XCTUnwrap(only["gross_errors"] as? Double), 0.01)
        XCTAssertLessThanOrEqual(try XCTUnwrap(only["false_reports"] as? Double), 0.01)
        let breaths = try XCTUnwrap(only["breaths_true"] as? Int)
        XCTAssertEqual(only["breaths_found"] as? Int, breaths)
        XCTAssertEqual(only["breaths_matched"] as? Int, breaths)
        XCTAssertEqual(only["misses"] as? [String], [])
    }

    func testEvaluateRejectsAFilterMatchingNothing() throws {
        let result = try run(["evaluate", "--filter", "no such case"])

        XCTAssertNotEqual(result.status, 0)
        XCTAssertEqual(nonEmptyLines(result.stderr).count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("no such case"), result.stderr)
    }

    /// A random corpus is made only as far as `--count`: a filter naming a later case says so.
    func testEvaluateSaysHowFarARandomCorpusWasMadeWhenTheFilterMatchesNothing() throws {
        _ = try requireTool("ffmpeg")
        let result = try run(["evaluate", "--corpus", "tuning", "--count", "3", "--filter", "tuning-0005"])

        XCTAssertNotEqual(result.status, 0)
        XCTAssertEqual(nonEmptyLines(result.stderr).count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("no case matches --filter tuning-0005 among the first 3"), result.stderr)
        XCTAssertTrue(result.stderr.contains("raise --count"), result.stderr)
    }

    func testEvaluateRejectsBadCorpusOptions() throws {
        for (arguments, message) in [
            (["--count", "5"], "--count 5 sizes the random corpora"),
            (["--corpus", "tuning", "--count", "0"], "--count must lie in 1...1000000"),
            (["--corpus", "held-out", "--jobs", "0"], "--jobs must lie in 1...256"),
            (["--corpus", "tuning", "--real-audio", "/no/such/folder"], "--real-audio /no/such/folder: no such directory"),
        ] {
            let result = try run(["evaluate"] + arguments)
            XCTAssertNotEqual(result.status, 0, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    /// `--seconds 1` is allowed, so it must run rather than trap.
    func testBenchmarkOfTheShortestAllowedSession() throws {
        let result = try run(["benchmark", "--seconds", "1", "--runs", "1", "--sample-rate", "8000"])

        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("x real time"), result.stdout)
        XCTAssertTrue(result.stdout.contains("engine compiled for"), result.stdout)
        #if os(Linux)
        let model = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8).split(separator: "\n")
            .first { $0.hasPrefix("model name") }?.split(separator: ":", maxSplits: 1).last?
            .trimmingCharacters(in: .whitespaces)
        if let model, !model.isEmpty {
            XCTAssertTrue(result.stdout.contains("processor: \(model) ("), result.stdout)
        }
        #endif
    }
}
