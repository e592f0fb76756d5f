import Foundation
import XCTest
@testable import OPEPAudio

/// Byte-level builders for hand-made headers.
struct Bytes {
    var bytes: [UInt8] = []

    mutating func ascii(_ text: String) { bytes += Array(text.utf8) }
    mutating func le16(_ value: UInt16) { bytes += [UInt8(value & 0xFF), UInt8(value >> 8)] }
    mutating func le32(_ value: UInt32) { for shift in [0, 8, 16, 24] { bytes.append(UInt8((value >> UInt32(shift)) & 0xFF)) } }
    mutating func be16(_ value: UInt16) { bytes += [UInt8(value >> 8), UInt8(value & 0xFF)] }
    mutating func be32(_ value: UInt32) { for shift in [24, 16, 8, 0] { bytes.append(UInt8((value >> UInt32(shift)) & 0xFF)) } }
    mutating func be64(_ value: UInt64) { for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((value >> UInt64(shift)) & 0xFF)) } }
    mutating func zeros(_ count: Int) { bytes += [UInt8](repeating: 0, count: count) }

    static func fmt(tag: UInt16 = 1, channels: UInt16 = 1, rate: UInt32 = 8000, bits: UInt16 = 16, blockAlign: UInt16? = nil) -> [UInt8] {
        var chunk = Bytes()
        chunk.ascii("fmt "); chunk.le32(16)
        chunk.le16(tag); chunk.le16(channels); chunk.le32(rate)
        let align = blockAlign ?? channels * ((bits + 7) / 8)
        chunk.le32(rate * UInt32(align)); chunk.le16(align); chunk.le16(bits)
        return chunk.bytes
    }

    static func chunk(_ id: String, size: UInt32, body: [UInt8]) -> [UInt8] {
        var chunk = Bytes()
        chunk.ascii(id); chunk.le32(size)
        return chunk.bytes + body
    }

    static func riff(_ chunks: [UInt8], magic: String = "RIFF", type: String = "WAVE") -> [UInt8] {
        var file = Bytes()
        file.ascii(magic); file.le32(UInt32(chunks.count + 4)); file.ascii(type)
        return file.bytes + chunks
    }

    /// 16-bit mono PCM samples 0, 1000, 2000, ...
    static func ramp(frames: Int) -> [UInt8] {
        var data = Bytes()
        for index in 0..<frames { data.le16(UInt16(truncatingIfNeeded: index * 1000)) }
        return data.bytes
    }

    static func aiff(commonRate: [UInt8]? = nil, compression: String? = nil, channels: UInt16 = 1, frames: UInt32 = 100, bits: UInt16 = 16, ssndFirst: Bool = false, audio: [UInt8]? = nil) -> [UInt8] {
        var common = Bytes()
        common.be16(channels); common.be32(frames); common.be16(bits)
        common.bytes += commonRate ?? [0x40, 0x0B, 0xFA, 0x00, 0, 0, 0, 0, 0, 0]
        if let compression { common.ascii(compression); common.bytes += [0, 0] }
        var comm = Bytes()
        comm.ascii("COMM"); comm.be32(UInt32(common.bytes.count)); comm.bytes += common.bytes
        let samples = audio ?? [UInt8](repeating: 0x10, count: Int(frames) * Int(channels) * Int((bits + 7) / 8))
        var ssnd = Bytes()
        ssnd.ascii("SSND"); ssnd.be32(UInt32(samples.count + 8)); ssnd.be32(0); ssnd.be32(0); ssnd.bytes += samples
        var form = Bytes()
        let body = ssndFirst ? ssnd.bytes + comm.bytes : comm.bytes + ssnd.bytes
        form.ascii("FORM"); form.be32(UInt32(body.count + 4)); form.ascii(compression == nil ? "AIFF" : "AIFC")
        return form.bytes + body
    }

    static func caf(formatID: String = "lpcm", flags: UInt32 = 2, bits: UInt32 = 16, channels: UInt32 = 1, rate: Double = 8000,
                    dataSize: UInt64? = nil, audio: [UInt8] = Bytes.ramp(frames: 10), dataFirst: Bool = false) -> [UInt8] {
        var file = Bytes()
        file.ascii("caff"); file.be16(1); file.be16(0)
        var desc = Bytes()
        desc.ascii("desc"); desc.be64(32); desc.be64(rate.bitPattern); desc.ascii(formatID); desc.be32(flags)
        desc.be32(bits / 8 * channels); desc.be32(1); desc.be32(channels); desc.be32(bits)
        var data = Bytes()
        data.ascii("data"); data.be64(dataSize ?? UInt64(audio.count + 4)); data.be32(0); data.bytes += audio
        return file.bytes + (dataFirst ? data.bytes + desc.bytes : desc.bytes + data.bytes)
    }
}

final class MalformedInputTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory = nil }

    private func file(_ bytes: [UInt8], _ name: String = "input") throws -> String {
        try directory.write(bytes, to: "\(name)-\(UUID().uuidString)")
    }

    /// Opens without the ffmpeg fallback so results do not depend on ffmpeg.
    private func openNative(_ bytes: [UInt8]) throws(AudioInputError) -> (any AudioSource)? {
        let path: String
        do { path = try file(bytes) } catch { throw .unreadable(path: "temp", reason: "\(error)") }
        return try AudioInput.openContainer(ByteStream(path: path))
    }

    func testMissingAndSpecialPaths() throws {
        assertAudioError(try AudioInput.open(path: directory.path("nope.wav")), "missing") {
            if case .fileNotFound = $0 { return true } else { return false }
        }
        assertAudioError(try AudioInput.open(path: directory.url.path), "directory") {
            if case .unreadable = $0 { return true } else { return false }
        }
        assertAudioError(try AudioInput.open(path: "-"), "stdin without format") { error in
            error == .rawFormatRequired(path: "-") && error.description.contains("--sample-rate") && error.description.contains("--encoding")
        }
    }

    func testEmptyAndShortFiles() throws {
        let empty = try file([])
        let short = try file(Array("RIFF1234".utf8))
        assertAudioError(try AudioInput.open(path: empty), "empty") {
            if case .empty = $0 { return true } else { return false }
        }
        assertAudioError(try AudioInput.open(path: empty, raw: RawPCMFormat(sampleRate: 8000, encoding: .s16le)), "empty raw") {
            if case .empty = $0 { return true } else { return false }
        }
        assertAudioError(try AudioInput.open(path: short), "8 bytes") {
            if case .truncatedHeader(_, 12, 8) = $0 { return true } else { return false }
        }
        let full = Bytes.riff(Bytes.fmt() + Bytes.chunk("data", size: 20, body: Bytes.ramp(frames: 10)))
        assertAudioError(try openNative(Array(full.prefix(24))), "cut inside fmt") {
            if case .truncatedHeader(_, 36, 24) = $0 { return true } else { return false }
        }
        assertAudioError(try openNative(Array(full.prefix(16))), "cut inside fmt chunk header") {
            if case .corrupt(_, let reason) = $0 { return reason.contains("no fmt chunk") } else { return false }
        }
    }

    func testWAVStructureErrors() throws {
        let data = Bytes.chunk("data", size: 20, body: Bytes.ramp(frames: 10))
        let list = Bytes.chunk("LIST", size: 4, body: Array("INFO".utf8))
        let cases: [(String, [UInt8], (AudioInputError) -> Bool)] = [
            ("header only", Bytes.riff(Bytes.fmt()), { if case .corrupt(_, let r) = $0 { r.contains("no data chunk") } else { false } }),
            ("fmt missing", Bytes.riff(list), { if case .corrupt(_, let r) = $0 { r.contains("no fmt chunk") } else { false } }),
            ("data before fmt", Bytes.riff(data + Bytes.fmt()), { if case .corrupt(_, let r) = $0 { r.contains("before the fmt") } else { false } }),
            ("absurd LIST size", Bytes.riff(Bytes.chunk("LIST", size: 0xFFFF_FFF0, body: [0, 0, 0, 0]) + Bytes.fmt() + data),
             { if case .corrupt(_, let r) = $0 { r.contains("LIST") } else { false } }),
            ("absurd fmt size", Bytes.riff(Bytes.chunk("fmt ", size: 0xFFFF_FFF0, body: Array(Bytes.fmt().dropFirst(8))) + data),
             { if case .truncatedHeader = $0 { true } else { false } }),
            ("short fmt", Bytes.riff(Bytes.chunk("fmt ", size: 8, body: [1, 0, 1, 0, 0x40, 0x1F, 0, 0]) + data),
             { if case .corrupt(_, let r) = $0 { r.contains("fmt chunk is 8 bytes") } else { false } }),
            ("ADPCM", Bytes.riff(Bytes.fmt(tag: 2, bits: 4, blockAlign: 256) + data),
             { if case .unsupportedEncoding(_, "WAV", let d) = $0 { d.contains("0x0002") && d.contains("ADPCM") } else { false } }),
            ("extensible unknown GUID", Bytes.riff(Bytes.chunk("fmt ", size: 40, body: Array(Bytes.fmt(tag: 0xFFFE).dropFirst(8)) + [22, 0, 16, 0] + [UInt8](repeating: 7, count: 20)) + data),
             { if case .unsupportedEncoding(_, "WAV", let d) = $0 { d.contains("GUID") } else { false } }),
            ("sample rate 0", Bytes.riff(Bytes.fmt(rate: 0) + data),
             { if case .invalidParameter(_, "sample rate", "0", _) = $0 { true } else { false } }),
            ("sample rate absurd", Bytes.riff(Bytes.fmt(rate: 4_000_000) + data),
             { if case .invalidParameter(_, "sample rate", _, _) = $0 { true } else { false } }),
            ("channels 0", Bytes.riff(Bytes.fmt(channels: 0) + data),
             { if case .invalidParameter(_, "channel count", "0", _) = $0 { true } else { false } }),
            ("48-bit integer", Bytes.riff(Bytes.fmt(bits: 48) + data),
             { if case .unsupportedEncoding = $0 { true } else { false } }),
            ("bad block align", Bytes.riff(Bytes.fmt(blockAlign: 3) + data),
             { if case .corrupt(_, let r) = $0 { r.contains("block align") } else { false } }),
            ("wrong form type", Bytes.riff(Bytes.fmt() + data, type: "WAVX"), { _ in false }),
        ]
        for (name, bytes, predicate) in cases {
            if name == "wrong form type" {
                XCTAssertNil(try openNative(bytes), "RIFF that is not WAVE is left to ffmpeg")
                let path = try file(bytes)
                assertAudioError(try WAVDecoder(stream: ByteStream(path: path)), name) {
                    if case .corrupt = $0 { return true } else { return false }
                }
                continue
            }
            assertAudioError(try openNative(bytes), name, where: predicate)
        }
    }

    func testStreamWithoutHeaderNeedsRawFormat() throws {
        let path = try file(Bytes.ramp(frames: 100))
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        assertAudioError(try AudioInput.open(fileHandle: handle, name: "-"), "headerless stream") {
            $0 == .rawFormatRequired(path: "-")
        }
    }

    func testUnknownFormatsGoToFFmpeg() throws {
        let path = try file(Array("This is a text file, not audio at all.\n".utf8))
        assertAudioError(try AudioInput.open(path: path), "text file") { error in
            switch error {
            case .ffmpegFailed(_, let status, let message): return status != 0 && !message.isEmpty
            case .ffmpegMissing: return Tool.path("ffmpeg") == nil
            default: return false
            }
        }
    }

    func testTruncatedDataChunksDecodeWhatIsThere() throws {
        let wav = Bytes.riff(Bytes.fmt() + Bytes.chunk("data", size: 2000, body: Bytes.ramp(frames: 300)))
        let aiff = Array(Bytes.aiff(frames: 1000).prefix(54 + 600))
        let caf = Bytes.caf(dataSize: 2004, audio: Bytes.ramp(frames: 300))
        for (name, bytes) in [("WAV", wav), ("AIFF", aiff), ("CAF", caf)] {
            let path = try file(bytes, name)
            let source = try AudioInput.open(path: path)
            XCTAssertEqual(source.frameCount, 300, name)
            XCTAssertEqual(source.warnings.count, 1, name)
            XCTAssertTrue(source.warnings.first?.contains("holds only 600") ?? false, "\(name): \(source.warnings)")
            XCTAssertEqual(try readAll(source, chunk: 64).count, 300, name)

            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            let streamed = try AudioInput.open(fileHandle: handle, name: name)
            XCTAssertEqual(streamed.warnings, [], name)
            XCTAssertEqual(try readAll(streamed, chunk: 64).count, 300, name)
            XCTAssertEqual(streamed.warnings.count, 1, "\(name) as a stream warns at the end: \(streamed.warnings)")
        }
        let wavSamples = try readAll(try AudioInput.open(path: try file(wav)))
        XCTAssertEqual(wavSamples[1], 1000 / 32768)
        XCTAssertEqual(wavSamples[299], Float(Int16(truncatingIfNeeded: 299 * 1000)) / 32768)
    }

    func testAIFFErrorsAndChunkOrder() throws {
        let zeroRate = [UInt8](repeating: 0, count: 10)
        let infiniteRate: [UInt8] = [0x7F, 0xFF] + [UInt8](repeating: 0, count: 8)
        let cases: [(String, [UInt8], (AudioInputError) -> Bool)] = [
            ("rate 0", Bytes.aiff(commonRate: zeroRate), { if case .invalidParameter(_, "sample rate", _, _) = $0 { true } else { false } }),
            ("rate inf", Bytes.aiff(commonRate: infiniteRate), { if case .invalidParameter(_, "sample rate", _, _) = $0 { true } else { false } }),
            ("channels 0", Bytes.aiff(channels: 0), { if case .invalidParameter(_, "channel count", _, _) = $0 { true } else { false } }),
            ("ima4", Bytes.aiff(compression: "ima4"), { if case .unsupportedEncoding(_, "AIFF-C", let d) = $0 { d.contains("ima4") } else { false } }),
            ("no SSND", Array(Bytes.aiff().prefix(38)), { if case .corrupt(_, let r) = $0 { r.contains("no SSND") } else { false } }),
        ]
        for (name, bytes, predicate) in cases {
            assertAudioError(try openNative(bytes), name, where: predicate)
        }
        let ramp = Bytes.ramp(frames: 50).chunked16Swapped()
        let inOrder = try XCTUnwrap(try openNative(Bytes.aiff(frames: 50, audio: ramp)))
        let reversed = try XCTUnwrap(try openNative(Bytes.aiff(frames: 50, ssndFirst: true, audio: ramp)))
        let expected = try readAll(inOrder)
        XCTAssertEqual(expected.count, 50)
        XCTAssertEqual(expected[3], 3000 / 32768)
        assertSameSamples(try readAll(reversed), expected, "SSND before COMM on a seekable file")
        XCTAssertEqual(reversed.sampleRate, 8000)
    }

    func testCAFErrors() throws {
        var unknownSizeChunk = Bytes.caf()
        unknownSizeChunk.insert(contentsOf: Array("free".utf8) + [UInt8](repeating: 0xFF, count: 8), at: 8 + 44)
        let cases: [(String, [UInt8], (AudioInputError) -> Bool)] = [
            ("aac", Bytes.caf(formatID: "aac "), { if case .unsupportedEncoding(_, "CAF", let d) = $0 { d.contains("aac") } else { false } }),
            ("data before desc", Bytes.caf(dataFirst: true), { if case .corrupt(_, let r) = $0 { r.contains("before the desc") } else { false } }),
            ("rate NaN", Bytes.caf(rate: .nan), { if case .invalidParameter(_, "sample rate", _, _) = $0 { true } else { false } }),
            ("12-bit", Bytes.caf(bits: 12), { if case .unsupportedEncoding = $0 { true } else { false } }),
            ("channels 0", Bytes.caf(channels: 0), { if case .invalidParameter(_, "channel count", _, _) = $0 { true } else { false } }),
            ("unknown-size chunk", unknownSizeChunk, { if case .corrupt(_, let r) = $0 { r.contains("unknown size") } else { false } }),
        ]
        for (name, bytes, predicate) in cases {
            assertAudioError(try openNative(bytes), name, where: predicate)
        }
        let unknownSize = try XCTUnwrap(try openNative(Bytes.caf(dataSize: UInt64.max)))
        XCTAssertEqual(unknownSize.frameCount, 10)
        XCTAssertEqual(try readAll(unknownSize).count, 10)
        XCTAssertEqual(unknownSize.warnings, [])
    }

    /// Random bytes, alone and behind each container's magic, must give typed errors or
    /// decodable sources, never a crash or a hang.
    func testRandomBytes() throws {
        var generator = SeededGenerator(state: 0x0123_4567_89AB_CDEF)
        let prefixes: [[UInt8]] = [[], Array("RIFF\u{0}\u{1}\u{0}\u{0}WAVE".utf8), Array("FORM\u{0}\u{1}\u{0}\u{0}AIFF".utf8),
                                   Array("FORM\u{0}\u{1}\u{0}\u{0}AIFC".utf8), Array("caff".utf8) + [0, 1, 0, 0]]
        for round in 0..<300 {
            let length = Int.random(in: 0..<600, using: &generator)
            var bytes = prefixes[round % prefixes.count]
            bytes += (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            exerciseNative(bytes, "random \(round)")
        }
        if Tool.path("ffmpeg") != nil {
            let bytes = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
            do {
                _ = try readAll(try AudioInput.open(path: try file(bytes)))
            } catch {
                XCTAssertFalse(error.localizedDescription.isEmpty)
            }
        }
    }

    /// Valid files with corrupted header bytes and random truncation.
    func testMutatedHeaders() throws {
        var generator = SeededGenerator(state: 42)
        let originals = [
            Bytes.riff(Bytes.fmt(channels: 2) + Bytes.chunk("LIST", size: 5, body: [1, 2, 3, 4, 5, 0]) + Bytes.chunk("data", size: 40, body: Bytes.ramp(frames: 20))),
            Bytes.aiff(compression: "sowt", channels: 2, frames: 10),
            Bytes.aiff(frames: 10, ssndFirst: true),
            Bytes.caf(flags: 0, channels: 1),
        ]
        for round in 0..<600 {
            var bytes = originals[round % originals.count]
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<min(bytes.count, 90), using: &generator)
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
            if Bool.random(using: &generator) {
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
            }
            exerciseNative(bytes, "mutation \(round)")
        }
    }

    private func exerciseNative(_ bytes: [UInt8], _ name: String) {
        do {
            guard let source = try openNative(bytes) else { return }
            let samples = try readAll(source, chunk: 33)
            XCTAssertTrue(samples.allSatisfy { $0 >= -1 && $0 <= 1 }, name)
            if let frameCount = source.frameCount {
                XCTAssertLessThanOrEqual(samples.count, frameCount, name)
            }
        } catch {
            XCTAssertFalse(error.description.isEmpty, name)
        }
    }
}

private extension Array where Element == UInt8 {
    /// Swaps each byte pair (little-endian 16-bit to big-endian).
    func chunked16Swapped() -> [UInt8] {
        var swapped = self
        for index in Swift.stride(from: 0, to: count - 1, by: 2) { swapped.swapAt(index, index + 1) }
        return swapped
    }
}
