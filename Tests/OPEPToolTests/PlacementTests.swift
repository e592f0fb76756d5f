import Foundation
import XCTest

/// `opep monitor --placement`: one breath through the device, then the verdict; nothing saved.
final class PlacementTests: XCTestCase {
    func testAClearBreathIsHeardClearlyAndAClippedOneIsNamed() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)
        let database = directory.path("history.sqlite")

        let clear = try run(["monitor", session.wav, "--placement", "--database", database])
        XCTAssertEqual(clear.status, 0, clear.stderr)
        XCTAssertTrue(clear.stdout.contains("Placement: heard clearly"), clear.stdout)
        XCTAssertTrue(clear.stdout.contains("dB over the room"), clear.stdout)
        XCTAssertFalse(clear.stdout.contains("breath 2/"), "it stops after the first breath")
        XCTAssertFalse(FileManager.default.fileExists(atPath: database), "nothing saved")

        let wav = try Data(contentsOf: URL(fileURLWithPath: session.wav))
        let data = try XCTUnwrap(wav.range(of: Data("data".utf8)))
        var clipped = Data()
        for offset in stride(from: data.upperBound + 4, to: wav.count - 1, by: 2) {
            let sample = Float(Int16(bitPattern: UInt16(wav[offset]) | UInt16(wav[offset + 1]) << 8)) / 32768
            let loud = min(max(8 * sample, -1), 1)
            withUnsafeBytes(of: loud.bitPattern.littleEndian) { clipped.append(contentsOf: $0) }
        }
        let distorted = try run(["monitor", "--placement", "--sample-rate", "16000", "--encoding", "f32le"], stdin: clipped)
        XCTAssertEqual(distorted.status, 1, "not heard clearly: \(distorted.stdout)")
        XCTAssertTrue(distorted.stdout.contains("with a problem (clipped)"), distorted.stdout)
        XCTAssertTrue(distorted.stdout.contains("of samples at their peak"), distorted.stdout)

        let silence = try run(["monitor", "--placement", "--sample-rate", "16000", "--encoding", "f32le"], stdin: Data(count: 4 * 16000))
        XCTAssertEqual(silence.status, 1)
        XCTAssertTrue(silence.stdout.contains("no breath through the device was heard"), silence.stdout)
    }
}
