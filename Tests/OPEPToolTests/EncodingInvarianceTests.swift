import Foundation
import XCTest

/// The breaths found must not depend on how a recording is stored: one simulated session in every
/// encoding, container and sample rate a phone or an editor may hand over gives the same breaths.
final class EncodingInvarianceTests: XCTestCase {
    /// How far a breath's start or end may move between versions, in seconds.
    ///
    /// AAC: ffmpeg's encoder primes 1024 samples (23 ms at 44.1 kHz) and writes an edit list that its
    /// decoder, which `opep` reads m4a through, honours: a click measured 0 samples late after the
    /// round trip. So no delay is compensated; a decoder ignoring the edit list would still be inside this tolerance.
    static let timeTolerance = 0.15
    /// With real breath: the breath begins up to 0.6 s before its rocker opens and the flutter
    /// is first heard somewhere on that slow ramp, so a breath's start or end may move 0.3 s.
    static let realBreathTimeTolerance = 0.3
    /// How far a breath's mean pressure may move between versions, in cmH2O (0.45 Hz of flutter).
    static let pressureTolerance = 0.5

    /// 44.1 kHz, float WAV, one set of 8 breaths and a huff cough under speech at -20 dB: 74 s (8 breaths
    /// at the simulated pace take over 60 s).
    static let sessionOptions = [
        "--sets", "1", "--breaths", "8", "--sample-rate", "44100", "--encoding", "float32",
        "--noise", "speech", "--noise-level=-20", "--huffs", "1",
    ]

    /// A version of the original: its name and how to make it from the original's path.
    struct Version: Sendable {
        var name: String
        var file: String
        var make: @Sendable (_ original: String, _ output: String) throws -> Void
    }

    /// sox in repeatable mode (`-R`: the same dither every run) from `input` to `output` with `options` before
    /// the output file and `effects` after it.
    static func sox(_ input: String, _ output: String, _ options: [String], effects: [String] = []) throws {
        try tool("sox", ["-R", input] + options + [output] + effects)
    }

    static func ffmpeg(_ input: String, _ output: String, _ options: [String]) throws {
        try tool("ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-i", input] + options + [output])
    }

    static let float = ["-e", "floating-point", "-b", "32"]

    static let versions: [Version] = [
        Version(name: "WAV 8-bit unsigned", file: "u8.wav") { try sox($0, $1, ["-e", "unsigned-integer", "-b", "8"]) },
        Version(name: "WAV 16-bit", file: "s16.wav") { try sox($0, $1, ["-e", "signed-integer", "-b", "16"]) },
        Version(name: "WAV 24-bit", file: "s24.wav") { try sox($0, $1, ["-e", "signed-integer", "-b", "24"]) },
        Version(name: "WAV 32-bit integer", file: "s32.wav") { try sox($0, $1, ["-e", "signed-integer", "-b", "32"]) },
        Version(name: "WAV 32-bit float (rewritten by sox)", file: "f32.wav") { try sox($0, $1, float) },
        Version(name: "AIFF 16-bit", file: "s16.aiff") { try sox($0, $1, ["-b", "16"]) },
        Version(name: "CAF (ffmpeg, 16-bit big-endian)", file: "s16.caf") { try ffmpeg($0, $1, ["-c:a", "pcm_s16be", "-f", "caf"]) },
        Version(name: "FLAC 16-bit", file: "s16.flac") { try sox($0, $1, ["-b", "16"]) },
        Version(name: "AAC m4a 128 kb/s (ffmpeg)", file: "aac.m4a") { try ffmpeg($0, $1, ["-c:a", "aac", "-b:a", "128k"]) },
        Version(name: "resampled to 16 kHz, float WAV", file: "rate16000.wav") {
            try sox($0, $1, float, effects: ["rate", "16000"])
        },
        Version(name: "resampled to 48 kHz and back to 44.1 kHz, float WAV", file: "rate48000-44100.wav") { original, output in
            let between = (output as NSString).deletingLastPathComponent + "/between-48000.wav"
            try sox(original, between, float, effects: ["rate", "48000"])
            try sox(between, output, float, effects: ["rate", "44100"])
        },
        Version(name: "resampled to 48 kHz, float WAV", file: "rate48000.wav") { try sox($0, $1, float, effects: ["rate", "48000"]) },
        Version(name: "resampled to 96 kHz, float WAV", file: "rate96000.wav") { try sox($0, $1, float, effects: ["rate", "96000"]) },
    ]

    func testEveryEncodingAndSampleRateGivesTheSameBreaths() throws {
        try assertEveryVersionGivesTheOriginalsBreaths(options: Self.sessionOptions)
    }

    /// The same with real breath: the exhaled air's own fluctuating noise, mouth clicks, breathing
    /// between the breaths and exhalations without the device (with the energy envelope, the
    /// original found 7 of its 8 breaths and 8-bit unsigned WAV 8).
    func testRealBreathGivesTheSameBreathsInEveryEncoding() throws {
        try assertEveryVersionGivesTheOriginalsBreaths(
            options: Self.sessionOptions + ["--real-breath"], timeTolerance: Self.realBreathTimeTolerance)
    }

    private func assertEveryVersionGivesTheOriginalsBreaths(
        options: [String], timeTolerance: Double = timeTolerance, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory, name: "original", options: options, seed: 11)
        let names = ["original (44.1 kHz float WAV)"] + Self.versions.map(\.name)
        var files = [session.wav]
        for version in Self.versions {
            let output = directory.path(version.file)
            try version.make(session.wav, output)
            files.append(output)
        }

        let analyses = try analyzeRecordings(files, in: directory)

        let table = zip(names, analyses).map { name, analysis in
            "  \(name.padding(toLength: 52, withPad: " ", startingAt: 0)) \(analysis.report.summary.breaths) breaths, "
                + "\(analysis.report.summary.sets) sets, starts [\(analysis.starts)]"
        }
        let truthStarts = session.truth.breaths.map { String(format: "%.2f", $0.start) }.joined(separator: " ")
        let results = "per version:\n" + table.joined(separator: "\n") + "\n  truth: \(session.truth.breaths.count) breaths, starts [\(truthStarts)]"

        // The original itself must be right, or every version could agree on the same wrong answer.
        let original = analyses[0].report
        XCTAssertEqual(original.summary.breaths, session.truth.breaths.count, "the original's breaths against the truth; \(results)", file: file, line: line)
        XCTAssertEqual(original.summary.sets, session.truth.setCount, "the original's sets against the truth; \(results)", file: file, line: line)

        var differences: [String] = []
        for (name, analysis) in zip(names, analyses).dropFirst() {
            differences += Self.differences(of: analysis.report, from: original, timeTolerance: timeTolerance).map { "\(name): \($0)" }
        }
        XCTAssertTrue(
            differences.isEmpty,
            "versions differ from the original (tolerances ±\(timeTolerance) s, ±\(Self.pressureTolerance) cmH2O):\n"
                + differences.joined(separator: "\n") + "\n" + results, file: file, line: line)
    }

    /// How `report` differs from `original`: breath and set counts, each breath's start, end and mean pressure.
    static func differences(of report: AnalysisReport, from original: AnalysisReport, timeTolerance: Double = timeTolerance) -> [String] {
        var found: [String] = []
        if report.summary.breaths != original.summary.breaths {
            found.append("\(report.summary.breaths) breaths instead of \(original.summary.breaths)")
        }
        if report.summary.sets != original.summary.sets {
            found.append("\(report.summary.sets) sets instead of \(original.summary.sets)")
        }
        guard report.breaths.count == original.breaths.count else { return found }
        for (breath, reference) in zip(report.breaths, original.breaths) {
            let number = "breath \(reference.index)"
            if abs(breath.start - reference.start) > timeTolerance {
                found.append("\(number) starts at \(seconds(breath.start)) instead of \(seconds(reference.start))")
            }
            if abs(breath.end - reference.end) > timeTolerance {
                found.append("\(number) ends at \(seconds(breath.end)) instead of \(seconds(reference.end))")
            }
            switch (breath.meanPressure, reference.meanPressure) {
            case let (pressure?, expected?) where abs(pressure - expected) > pressureTolerance:
                found.append("\(number) mean pressure \(cmH2O(pressure)) instead of \(cmH2O(expected))")
            case (nil, _?), (_?, nil):
                found.append("\(number) mean pressure \(breath.meanPressure.map(cmH2O) ?? "none") instead of "
                    + "\(reference.meanPressure.map(cmH2O) ?? "none")")
            default:
                break
            }
        }
        return found
    }

    private static func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }
    private static func cmH2O(_ value: Double) -> String { String(format: "%.2f cmH2O", value) }
}
