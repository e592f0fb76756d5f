import Foundation
import XCTest

/// Real recordings without an OPEP device (corpus/real-audio: speech, music, a kitchen, an exercise
/// bike, 45 coughs) must give no breath and almost no pitch: anything found in them is a false report.
final class RealAudioTests: XCTestCase {
    /// The largest share of a recording's frames that may carry a pitch.
    static let maximumPitchShare = 0.01

    /// Silence between the coughs when they are played in a row, in seconds.
    static let pauseBetweenCoughs = "1"

    /// corpus/real-audio of this package, found from this file's place in it.
    static func corpus() throws -> URL {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // OPEPToolTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()
        let corpus = root.appendingPathComponent("corpus/real-audio")
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: corpus.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw ToolFailed(description: "the real recordings are missing: no folder \(corpus.path) (it is committed with the package)")
        }
        return corpus
    }

    /// The .flac files directly in corpus/real-audio (speech, music, noise), sorted.
    static func recordings() throws -> [String] {
        try flacFiles(in: try corpus())
    }

    /// The single coughs in corpus/real-audio/coughs, sorted.
    static func coughs() throws -> [String] {
        try flacFiles(in: try corpus().appendingPathComponent("coughs"))
    }

    private static func flacFiles(in folder: URL) throws -> [String] {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".flac") }.sorted()
            .map { folder.appendingPathComponent($0).path }
        guard !files.isEmpty else { throw ToolFailed(description: "no .flac files in \(folder.path)") }
        return files
    }

    func testEveryRecordingAloneGivesNoBreathAndAlmostNoPitch() throws {
        let directory = try TemporaryDirectory()
        let recordings = try Self.recordings()
        XCTAssertEqual(recordings.count, 9, "speech, music, kitchen and exercise bike recordings in corpus/real-audio")

        assertNoBreathAndAlmostNoPitch(in: try analyzeRecordings(recordings, frames: true, in: directory))
    }

    func testEveryCoughAloneGivesNoBreathAndAlmostNoPitch() throws {
        let directory = try TemporaryDirectory()
        let coughs = try Self.coughs()
        XCTAssertEqual(coughs.count, 45, "the real coughs in corpus/real-audio/coughs")

        assertNoBreathAndAlmostNoPitch(in: try analyzeRecordings(coughs, frames: true, in: directory))
    }

    func testCoughsInARowGiveNoBreathAndAlmostNoPitch() throws {
        let directory = try TemporaryDirectory()
        let row = try coughsInARow(in: directory)

        assertNoBreathAndAlmostNoPitch(in: try analyzeRecordings([row], frames: true, in: directory))
    }

    /// Every recording and the coughs in a row, peak-normalised to -20 dBFS and to 0 dBFS, and the
    /// speech and music also 12 dB above full scale, clipped.
    func testRecordingsAtOtherLevelsGiveNoBreath() throws {
        let directory = try TemporaryDirectory()
        let recordings = try Self.recordings() + [try coughsInARow(in: directory)]
        var copies: [String] = []
        for recording in recordings {
            let name = ((recording as NSString).lastPathComponent as NSString).deletingPathExtension
            var levels = [("peak-20dB", ["gain", "-n", "-20"]), ("peak0dB", ["gain", "-n", "0"])]
            if name.hasPrefix("speech") || name.hasPrefix("music") {
                levels.append(("clipped+12dB", ["gain", "-n", "0", "gain", "12"]))
            }
            for (level, effects) in levels {
                let copy = directory.path("\(name)-\(level).wav")
                try tool("sox", ["-R", "-V1", recording, "-b", "16", copy] + effects)
                copies.append(copy)
            }
        }

        for analysis in try analyzeRecordings(copies, in: directory) {
            XCTAssertEqual(analysis.report.summary.breaths, 0, analysis.line)
        }
    }

    /// The recordings mixed in pairs (each with the next, cyclically: speech over music, music over
    /// the kitchen, the bike under speech...), and all nine at once: sound without a device is no
    /// flutter however it overlaps.
    func testRecordingsMixedTogetherGiveNoBreathAndAlmostNoPitch() throws {
        let directory = try TemporaryDirectory()
        let recordings = try Self.recordings()
        var mixes: [String] = []
        for (number, recording) in recordings.enumerated() {
            let mix = directory.path("mix-\(number).wav")
            try tool("sox", ["-R", "-V1", "-m", recording, recordings[(number + 1) % recordings.count], "-b", "16", mix])
            mixes.append(mix)
        }
        let all = directory.path("mix-all.wav")
        try tool("sox", ["-R", "-V1", "-m"] + recordings + ["-b", "16", all, "gain", "-n", "-3"])
        mixes.append(all)

        assertNoBreathAndAlmostNoPitch(in: try analyzeRecordings(mixes, frames: true, in: directory))
    }

    /// The 45 coughs at 16 kHz, each followed by a second of silence, as one WAV file.
    private func coughsInARow(in directory: TemporaryDirectory) throws -> String {
        var parts: [String] = []
        for (number, cough) in try Self.coughs().enumerated() {
            let part = directory.path("cough-part-\(number).wav")
            try tool("sox", ["-R", cough, "-r", "16000", "-c", "1", "-b", "16", part, "pad", "0", Self.pauseBetweenCoughs])
            parts.append(part)
        }
        let row = directory.path("coughs-in-a-row.wav")
        try tool("sox", parts + [row])
        return row
    }

    private func assertNoBreathAndAlmostNoPitch(in analyses: [Analysis], file: StaticString = #filePath, line: UInt = #line) {
        for analysis in analyses {
            XCTAssertEqual(analysis.report.summary.breaths, 0, analysis.line, file: file, line: line)
            XCTAssertFalse(analysis.frames.isEmpty, "\(analysis.name): no frames", file: file, line: line)
            XCTAssertLessThan(analysis.pitchShare, Self.maximumPitchShare, analysis.line, file: file, line: line)
        }
    }
}
