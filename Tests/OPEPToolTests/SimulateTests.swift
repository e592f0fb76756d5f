import Foundation
import XCTest

final class SimulateTests: XCTestCase {
    func testWritesTheRecordingWithItsGroundTruth() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)

        let wav = try Data(contentsOf: URL(fileURLWithPath: session.wav))
        XCTAssertEqual(String(decoding: wav.prefix(4), as: UTF8.self), "RIFF")
        XCTAssertEqual(String(decoding: wav[8..<12], as: UTF8.self), "WAVE")
        XCTAssertEqual(session.truth.breaths.count, 3)
        XCTAssertEqual(session.truth.setCount, 1)
        for breath in session.truth.breaths {
            XCTAssertLessThan(breath.start, breath.flutterStart)
            XCTAssertLessThan(breath.flutterStart, breath.flutterEnd)
            XCTAssertLessThanOrEqual(breath.flutterEnd, breath.end)
        }

        let csv = try String(contentsOfFile: session.truthCSV, encoding: .utf8)
        XCTAssertEqual(firstLine(csv), "time_s,pitch_hz,pressure_cmh2o,exhaling")
        let rows = try TruthRow.parse(csv)
        XCTAssertEqual(rows.count, Int(session.truth.duration * 100) + 1)
        XCTAssertTrue(rows.contains { $0.pitch != nil })
        for row in rows {
            XCTAssertEqual(row.pitch == nil, row.pressure == nil, "at \(row.time) s")
            if row.pitch != nil { XCTAssertTrue(row.exhaling, "pitch outside an exhalation at \(row.time) s") }
        }
    }

    func testSoxReadsTheSampleRateAndLength() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)

        let rate = String(decoding: try tool("soxi", ["-r", session.wav]), as: UTF8.self)
        XCTAssertEqual(rate.trimmingCharacters(in: .whitespacesAndNewlines), "16000")
        let seconds = Double(String(decoding: try tool("soxi", ["-D", session.wav]), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertEqual(try XCTUnwrap(seconds), session.truth.duration, accuracy: 0.01)
    }

    /// Breathing near the phone without the device: exhalations only, which the engine must not
    /// count; it needs real breath, and says so in one line.
    func testASessionWithoutTheDeviceHasNoBreathAndNeedsRealBreath() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory, options: SimulatedSession.smallOptions + ["--real-breath", "--without-device"])
        XCTAssertEqual(session.truth.breaths.count, 0)
        let truth = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.path("session.truth.json")))) as? [String: Any]
        XCTAssertGreaterThanOrEqual((truth?["plain_exhalations"] as? [Any])?.count ?? 0, 3)
        XCTAssertEqual((truth?["configuration"] as? [String: Any])?["without_device"] as? Bool, true)

        let refused = try run(["simulate", "-o", directory.path("refused.wav"), "--without-device"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("--without-device needs --real-breath"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path("refused.wav")))
    }

    func testTheSeedDecidesTheRecording() throws {
        let directory = try TemporaryDirectory()
        let first = try simulateSession(in: directory, name: "first", seed: 5)
        let again = try simulateSession(in: directory, name: "again", seed: 5)
        let other = try simulateSession(in: directory, name: "other", seed: 6)

        let bytes = try [first, again, other].map { try Data(contentsOf: URL(fileURLWithPath: $0.wav)) }
        XCTAssertEqual(bytes[0], bytes[1])
        XCTAssertNotEqual(bytes[0], bytes[2])
    }
}
