import Foundation
import XCTest
@testable import OPEPAudio

final class RawAndWriterTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory = nil }

    /// Encodes `samples` (interleaved, in [-1, 1)) the way a raw PCM producer would.
    private func encode(_ samples: [Float], as encoding: RawSampleEncoding) -> [UInt8] {
        var bytes: [UInt8] = []
        func put(_ value: UInt64, _ width: Int, bigEndian: Bool) {
            let little = (0..<width).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * $0)) }
            bytes += bigEndian ? little.reversed() : little
        }
        for sample in samples {
            let big = encoding.rawValue.hasSuffix("be")
            switch encoding {
            case .u8: bytes.append(UInt8(Int((sample * 128).rounded()) + 128))
            case .s8: bytes.append(UInt8(bitPattern: Int8((sample * 128).rounded())))
            case .s16le, .s16be: put(UInt64(UInt16(bitPattern: Int16((sample * 32768).rounded()))), 2, bigEndian: big)
            case .s24le, .s24be: put(UInt64(UInt32(bitPattern: Int32((sample * 8_388_608).rounded()))), 3, bigEndian: big)
            case .s32le, .s32be: put(UInt64(UInt32(bitPattern: Int32((Double(sample) * 2_147_483_648).rounded()))), 4, bigEndian: big)
            case .f32le, .f32be: put(UInt64(sample.bitPattern), 4, bigEndian: big)
            case .f64le, .f64be: put(Double(sample).bitPattern, 8, bigEndian: big)
            }
        }
        return bytes
    }

    private func tolerance(_ encoding: RawSampleEncoding) -> Float {
        switch encoding.bytesPerSample {
        case 1: return 1.0 / 128
        case 2: return 1.0 / 32768
        default: return 1e-6
        }
    }

    func testRawRoundTripThroughFileAndPipe() throws {
        let signal = TestSignal(channels: 2)
        let expected = signal.mono
        for encoding in RawSampleEncoding.allCases {
            let bytes = encode(signal.interleaved, as: encoding) + [0x01]
            let format = RawPCMFormat(sampleRate: 44100, encoding: encoding, channelCount: 2)

            let path = try directory.write(bytes, to: "raw.\(encoding.rawValue)")
            let fromFile = try AudioInput.open(path: path, raw: format)
            XCTAssertEqual(fromFile.frameCount, TestSignal.frameCount, encoding.rawValue)
            XCTAssertEqual(fromFile.formatDescription, "raw PCM \(encoding.rawValue), 2 channels, 44100 Hz")
            let decoded = try readAll(fromFile, chunk: 7)
            XCTAssertEqual(decoded.count, TestSignal.frameCount, encoding.rawValue)
            XCTAssertLessThanOrEqual(maxDifference(decoded, expected), tolerance(encoding), encoding.rawValue)
            XCTAssertEqual(fromFile.warnings.count, 1, "the partial trailing frame is dropped with a warning")

            let pipe = Pipe()
            let writer = pipe.fileHandleForWriting
            let feeder = Thread {
                try? writer.write(contentsOf: bytes)
                try? writer.close()
            }
            feeder.start()
            let fromPipe = try AudioInput.open(fileHandle: pipe.fileHandleForReading, name: "pipe", raw: format)
            XCTAssertNil(fromPipe.frameCount)
            assertSameSamples(try readAll(fromPipe, chunk: 1000), decoded, "\(encoding.rawValue) through a pipe")
        }
    }

    func testRawFormatValidation() throws {
        let path = try directory.write([0, 0, 0, 0], to: "raw.bin")
        let cases: [(RawPCMFormat, String)] = [
            (RawPCMFormat(sampleRate: 0, encoding: .s16le), "sample rate"),
            (RawPCMFormat(sampleRate: 800_000, encoding: .s16le), "sample rate"),
            (RawPCMFormat(sampleRate: .nan, encoding: .s16le), "sample rate"),
            (RawPCMFormat(sampleRate: 8000, encoding: .s16le, channelCount: 0), "channel count"),
            (RawPCMFormat(sampleRate: 8000, encoding: .s16le, channelCount: 100_000), "channel count"),
        ]
        for (format, parameter) in cases {
            assertAudioError(try AudioInput.open(path: path, raw: format), "\(format)") {
                if case .invalidParameter(_, parameter, _, _) = $0 { return true } else { return false }
            }
        }
    }

    func testFloatInputIsClampedAndNaNSilenced() throws {
        let samples: [Float] = [2, -3, .nan, .infinity, 0.25]
        let path = try directory.write(encode(samples, as: .f32le), to: "loud.f32")
        let decoded = try readAll(try AudioInput.open(path: path, raw: RawPCMFormat(sampleRate: 8000, encoding: .f32le)))
        XCTAssertEqual(decoded, [1, -1, 0, 1, 0.25])
    }

    func testWriterRoundTrip() throws {
        for encoding in WAVWriter.Encoding.allCases {
            for channels in [1, 2, 3] {
                let signal = TestSignal(channels: channels)
                let path = directory.path("written-\(encoding.rawValue)-\(channels).wav")
                let writer = try WAVWriter(path: path, sampleRate: TestSignal.sampleRate, channelCount: channels, encoding: encoding)
                let half = signal.interleaved.count / channels / 2 * channels
                try writer.write(Array(signal.interleaved[..<half]))
                try writer.write(Array(signal.interleaved[half...]))
                try writer.finish()
                XCTAssertEqual(writer.framesWritten, TestSignal.frameCount)

                let source = try AudioInput.open(path: path)
                XCTAssertEqual(source.frameCount, TestSignal.frameCount)
                XCTAssertEqual(source.sampleRate, Double(TestSignal.sampleRate))
                let decoded = try readAll(source)
                let limit: Float = encoding == .int16 ? 1e-4 : 1e-6
                XCTAssertLessThanOrEqual(maxDifference(decoded, signal.mono), limit, "\(encoding) \(channels) channels")
                XCTAssertEqual(source.warnings, [])

                if Tool.path("soxi") != nil {
                    XCTAssertEqual(try Tool.run("soxi", ["-r", path]).trimmingCharacters(in: .whitespacesAndNewlines), "44100")
                    XCTAssertEqual(try Tool.run("soxi", ["-c", path]).trimmingCharacters(in: .whitespacesAndNewlines), "\(channels)")
                    XCTAssertEqual(try Tool.run("soxi", ["-s", path]).trimmingCharacters(in: .whitespacesAndNewlines), "\(TestSignal.frameCount)")
                }
            }
        }
    }

    func testWriterClipsPadsAndRejectsBadInput() throws {
        let path = directory.path("clip.wav")
        let writer = try WAVWriter(path: path, sampleRate: 8000, channelCount: 1, encoding: .int24)
        try writer.write([1.5, -1.5, .nan])
        try writer.finish()
        assertAudioError(try writer.write([0]), "after finish") {
            if case .unwritable = $0 { return true } else { return false }
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(bytes.count % 2, 0, "odd data chunks are padded")
        XCTAssertEqual(try readAll(try AudioInput.open(path: path)), [8_388_607.0 / 8_388_608, -8_388_607.0 / 8_388_608, 0])

        let stereo = try WAVWriter(path: directory.path("stereo.wav"), sampleRate: 8000, channelCount: 2)
        assertAudioError(try stereo.write([0.1, 0.2, 0.3]), "odd sample count") {
            if case .invalidParameter(_, "sample count", _, _) = $0 { return true } else { return false }
        }
        assertAudioError(try WAVWriter(path: directory.path("bad.wav"), sampleRate: 0), "rate 0") {
            if case .invalidParameter(_, "sample rate", _, _) = $0 { return true } else { return false }
        }
        assertAudioError(try WAVWriter(path: directory.path("missing/dir/x.wav"), sampleRate: 8000), "unwritable") {
            if case .unwritable = $0 { return true } else { return false }
        }
    }
}
