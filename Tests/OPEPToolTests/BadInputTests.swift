import Foundation
import XCTest

/// Unusable input ends `opep analyze` with a non-zero status and one line naming the file and the
/// problem (validation errors: a first line naming the problem), never with a crash.
final class BadInputTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    func testMissingFile() throws {
        let path = directory.path("missing.wav")
        try assertFileProblem(["analyze", path], names: path, problem: "file not found")
    }

    func testEmptyFile() throws {
        let path = try directory.write(Data(), to: "empty.wav")
        try assertFileProblem(["analyze", path], names: path, problem: "file is empty")
    }

    func testTruncatedHeader() throws {
        let session = try simulateSession(in: directory)
        let header = try Data(contentsOf: URL(fileURLWithPath: session.wav)).prefix(20)
        let path = try directory.write(header, to: "truncated.wav")
        try assertFileProblem(["analyze", path], names: path, problem: "header is truncated")
    }

    func testRandomBytes() throws {
        let path = try directory.write(randomBytes(10_000, seed: 42), to: "noise.wav")
        try assertFileProblem(["analyze", path], names: path)
    }

    func testTextFile() throws {
        let path = try directory.write("time,pressure\n0.0,12.5\n0.1,13.0\n", to: "notes.txt")
        try assertFileProblem(["analyze", path], names: path)
    }

    func testStandardInputWithoutRawLayout() throws {
        try assertValidationError(["analyze", "-"], mentions: "--sample-rate", stdin: Data(count: 64_000))
    }

    func testZeroSampleRate() throws {
        try assertValidationError(["analyze", "-", "--sample-rate", "0", "--encoding", "f32le"], mentions: "--sample-rate", stdin: Data(count: 64_000))
    }

    func testUnknownEncoding() throws {
        try assertValidationError(["analyze", "-", "--sample-rate", "16000", "--encoding", "nope"], mentions: "--encoding", stdin: Data(count: 64_000))
    }

    func testReversedTarget() throws {
        let session = try simulateSession(in: directory)
        try assertValidationError(["analyze", session.wav, "--target", "20-10"], mentions: "--target")
    }

    /// Levels in dB full scale are negative: a value with a leading minus is read as the
    /// option's value, without an equals sign, and one out of range is named.
    func testNegativeValuesAreReadAsValues() throws {
        let session = try simulateSession(in: directory, options: SimulatedSession.smallOptions + ["--noise-level", "-15"])
        let truth = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.path("session.truth.json")))) as? [String: Any]
        let simulated = truth?["configuration"] as? [String: Any]
        XCTAssertEqual(simulated?["noise_level_db"] as? Double, -15)
        let fixed = try run(["analyze", session.wav, "--noise-floor-db", "-60", "--format", "json"])
        XCTAssertEqual(fixed.status, 0, fixed.stderr)
        let document = try JSONSerialization.jsonObject(with: Data(fixed.stdout.utf8)) as? [String: Any]
        XCTAssertEqual((document?["settings"] as? [String: Any])?["noise_floor_db"] as? Double, -60)
        try assertValidationError(["analyze", session.wav, "--noise-floor-db", "-300"], mentions: "--noise-floor-db")
    }

    func testMissingDeviceProfile() throws {
        let session = try simulateSession(in: directory)
        let profile = directory.path("missing-profile.json")
        try assertFileProblem(["analyze", session.wav, "--device", profile], names: profile, problem: "device profile not found")
    }

    func testMalformedDeviceProfile() throws {
        let session = try simulateSession(in: directory)
        let profile = try directory.write(#"{"name": "Broken", "lower_frequency_hz": 10,"#, to: "broken.json")
        try assertFileProblem(["analyze", session.wav, "--device", profile], names: profile, problem: "not a device profile")
    }

    func testDeviceProfileWithAWrongValue() throws {
        let session = try simulateSession(in: directory)
        let profile = try directory.write(
            #"{"name":"Test","lower_frequency_hz":"ten","upper_frequency_hz":40,"intercept_cmh2o":0,"slope_cmh2o_per_hz":1}"#,
            to: "wrong.json")
        try assertFileProblem(["analyze", session.wav, "--device", profile], names: profile, problem: "lower")
    }

    func testRecordingCutShortIsAnalysedAsFarAsItGoes() throws {
        let session = try simulateSession(in: directory)
        let kept = 700_000
        let path = try directory.write(try Data(contentsOf: URL(fileURLWithPath: session.wav)).prefix(kept), to: "cut.wav")
        let cut = Double(kept) / 2 / 16000
        XCTAssertFalse(session.truth.breaths.contains { $0.start < cut && $0.end > cut }, "the cut must fall between breaths")
        let breathsBeforeCut = session.truth.breaths.filter { $0.end < cut }.count

        let text = try run(["analyze", path])
        let json = try run(["analyze", path, "--format", "json"])

        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("\nwarning: data chunk declares"), text.stdout)
        XCTAssertTrue(text.stdout.contains("\n\(breathsBeforeCut) breaths in 1 set,"), text.stdout)
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertTrue(json.stderr.hasPrefix("opep: warning: data chunk declares"), json.stderr)
        XCTAssertEqual(try AnalysisReport(json: json.stdout).summary.breaths, breathsBeforeCut)
    }

    /// A file problem: non-zero exit, nothing on standard output and exactly one line on standard
    /// error naming the file and, when given, the problem.
    private func assertFileProblem(
        _ arguments: [String], names path: String, problem: String? = nil, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let result = try run(arguments, file: file, line: line)
        XCTAssertNotEqual(result.status, 0, file: file, line: line)
        XCTAssertEqual(result.stdout, "", file: file, line: line)
        let lines = nonEmptyLines(result.stderr)
        XCTAssertEqual(lines.count, 1, result.stderr, file: file, line: line)
        XCTAssertTrue(lines.first?.contains(path) ?? false, result.stderr, file: file, line: line)
        if let problem {
            XCTAssertTrue(lines.first?.contains(problem) ?? false, "\(problem) not in \(result.stderr)", file: file, line: line)
        }
    }

    /// An invalid command line: non-zero exit, nothing on standard output and a first line on
    /// standard error that names the option at fault.
    private func assertValidationError(
        _ arguments: [String], mentions option: String, stdin: Data? = nil, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let result = try run(arguments, stdin: stdin, file: file, line: line)
        XCTAssertNotEqual(result.status, 0, file: file, line: line)
        XCTAssertEqual(result.stdout, "", file: file, line: line)
        XCTAssertTrue(firstLine(result.stderr).contains(option), result.stderr, file: file, line: line)
    }
}
