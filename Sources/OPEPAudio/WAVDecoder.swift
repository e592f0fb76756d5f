/// Streaming decoder for RIFF/WAVE (and RF64/BW64) files holding integer or float PCM.
///
/// Works on pipes as well as files: chunks are skipped by reading when seeking is impossible,
/// and a data size of 0 or 0xFFFFFFFF (streaming writers) means "until the end of the input".
final class WAVDecoder: AudioSource {
    let sampleRate: Double
    let formatDescription: String
    let frameCount: Int?
    /// Interleaved channels in the file, before mixing to mono.
    let channelCount: Int
    var warnings: [String] { reader.warnings }
    private let reader: PCMFrameReader

    private struct Format {
        var encoding: SampleEncoding
        var channels: Int
        var sampleRate: Double
        var isExtensible: Bool
    }

    private static let maxFormatChunkSize: UInt32 = 1 << 16
    /// Tail shared by the KSDATAFORMAT_SUBTYPE GUIDs after their leading 32-bit format tag.
    private static let subformatGUIDTail: [UInt8] = [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]

    /// Parses the header from `stream`, leaving it positioned at the first audio frame.
    init(stream: ByteStream) throws(AudioInputError) {
        let path = stream.path
        let header = ByteReader(try stream.read(upTo: 12))
        guard header.count == 12 else { throw .truncatedHeader(path: path, expected: 12, actual: header.count) }
        let container = header.fourCC(at: 0) ?? ""
        guard ["RIFF", "RF64", "BW64"].contains(container), header.fourCC(at: 8) == "WAVE" else {
            throw .corrupt(path: path, reason: "not a RIFF/WAVE header (starts with '\(container)', type '\(header.fourCC(at: 8) ?? "")')")
        }
        var format: Format?
        var largeDataSize: UInt64?
        var warnings: [String] = []

        while true {
            let chunkStart = stream.position
            let chunkHeader = ByteReader(try stream.read(upTo: 8))
            guard chunkHeader.count == 8, let id = chunkHeader.fourCC(at: 0), let size = chunkHeader.uint32LE(at: 4) else {
                throw .corrupt(path: path, reason: format == nil ? "no fmt chunk" : "no data chunk")
            }
            switch id {
            case "fmt ":
                guard format == nil else { throw .corrupt(path: path, reason: "more than one fmt chunk") }
                let body = try Self.readBody(of: id, size: size, from: stream, chunkStart: chunkStart)
                format = try Self.parseFormat(body, path: path)
                try stream.skip(UInt64(size & 1))
            case "ds64" where container != "RIFF":
                let body = try Self.readBody(of: id, size: size, from: stream, chunkStart: chunkStart)
                largeDataSize = body.uint64LE(at: 8)
                try stream.skip(UInt64(size & 1))
            case "data":
                guard let format else { throw .corrupt(path: path, reason: "data chunk comes before the fmt chunk") }
                let frameBytes = UInt64(format.encoding.bytesPerSample * format.channels)
                var dataBytes: UInt64?
                if size == 0xFFFF_FFFF, let largeDataSize {
                    dataBytes = largeDataSize
                } else if !Self.isStreamingPlaceholder(size) {
                    dataBytes = UInt64(size)
                }
                if let declared = dataBytes, let available = stream.remainingInFile, declared > available {
                    warnings.append("data chunk declares \(declared) bytes but the file holds only \(available); decoding \(available / frameBytes) frames")
                    dataBytes = available
                }
                let total = dataBytes ?? stream.remainingInFile
                self.frameCount = total.map { Int(clamping: $0 / frameBytes) }
                self.sampleRate = format.sampleRate
                self.channelCount = format.channels
                let name = container == "RIFF" ? "WAV" : container
                self.formatDescription = "\(name)\(format.isExtensible ? " (extensible)" : "") \(format.encoding.summary), "
                    + describeLayout(channels: format.channels, sampleRate: format.sampleRate)
                self.reader = PCMFrameReader(stream: stream, encoding: format.encoding, channelCount: format.channels,
                                             dataBytes: dataBytes, warnings: warnings)
                return
            default:
                let skipped = try stream.skip(UInt64(size))
                guard skipped == UInt64(size) else {
                    throw .corrupt(path: path, reason: "chunk '\(id)' at offset \(chunkStart) declares \(size) bytes but the file ends \(skipped) bytes into it")
                }
                try stream.skip(UInt64(size & 1))
            }
        }
    }

    func read(into buffer: inout [Float], maxFrames: Int) throws(AudioInputError) -> Int {
        try reader.read(into: &buffer, maxFrames: maxFrames)
    }

    /// Sizes written by tools that cannot seek back: ffmpeg (0xFFFFFFFF), some recorders (0),
    /// and sox, which writes just under 2 GiB rounded to whole frames.
    private static func isStreamingPlaceholder(_ size: UInt32) -> Bool {
        size == 0 || size == 0xFFFF_FFFF || (0x7FFF_0000...0x7FFF_F000).contains(size)
    }

    private static func readBody(of id: String, size: UInt32, from stream: ByteStream, chunkStart: UInt64) throws(AudioInputError) -> ByteReader {
        let bodyStart = stream.position
        if let available = stream.remainingInFile, UInt64(size) > available {
            throw .truncatedHeader(path: stream.path, expected: Int(clamping: bodyStart + UInt64(size)), actual: Int(clamping: bodyStart + available))
        }
        guard size <= maxFormatChunkSize else {
            throw .corrupt(path: stream.path, reason: "'\(id)' chunk at offset \(chunkStart) has implausible size \(size)")
        }
        let body = try stream.read(upTo: Int(size))
        guard body.count == Int(size) else {
            throw .truncatedHeader(path: stream.path, expected: Int(clamping: bodyStart + UInt64(size)), actual: Int(clamping: bodyStart) + body.count)
        }
        return ByteReader(body)
    }

    private static func parseFormat(_ body: ByteReader, path: String) throws(AudioInputError) -> Format {
        guard let tag = body.uint16LE(at: 0), let channels = body.uint16LE(at: 2), let rate = body.uint32LE(at: 4),
              let blockAlign = body.uint16LE(at: 12), let bits = body.uint16LE(at: 14) else {
            throw .corrupt(path: path, reason: "fmt chunk is \(body.count) bytes; at least 16 are needed")
        }
        var formatTag = UInt32(tag)
        let isExtensible = tag == 0xFFFE
        if isExtensible {
            guard body.count >= 40, let subformat = body.uint32LE(at: 24) else {
                throw .corrupt(path: path, reason: "WAVE_FORMAT_EXTENSIBLE fmt chunk is \(body.count) bytes; 40 are needed")
            }
            guard Array(body.bytes[28..<40]) == subformatGUIDTail else {
                throw .unsupportedEncoding(path: path, format: "WAV", detail: "WAVE_FORMAT_EXTENSIBLE with unknown subformat GUID " + body.bytes[24..<40].map { String($0, radix: 16).leftPadded(to: 2) }.joined())
            }
            formatTag = subformat
        }
        try AudioLimits.validate(sampleRate: Double(rate), channels: Int(channels), path: path)
        let containerBytes = (Int(bits) + 7) / 8
        let encoding: SampleEncoding?
        switch formatTag {
        case 0x0001:
            encoding = bits > 0 ? .integer(bytes: containerBytes, order: .little, unsignedBytes: true) : nil
        case 0x0003:
            encoding = bits == 32 || bits == 64 ? .float(bytes: containerBytes, order: .little) : nil
        default:
            throw .unsupportedEncoding(path: path, format: "WAV", detail: "format tag \(hexTag(formatTag))\(tagNames[formatTag].map { " (\($0))" } ?? "") is not PCM or IEEE float")
        }
        guard let encoding else {
            throw .unsupportedEncoding(path: path, format: "WAV", detail: "\(bits)-bit \(formatTag == 3 ? "float" : "integer") samples")
        }
        let expectedAlign = containerBytes * Int(channels)
        guard Int(blockAlign) == expectedAlign else {
            throw .corrupt(path: path, reason: "block align \(blockAlign) does not match \(channels) channels of \(bits)-bit samples (expected \(expectedAlign))")
        }
        return Format(encoding: encoding, channels: Int(channels), sampleRate: Double(rate), isExtensible: isExtensible)
    }

    private static func hexTag(_ tag: UInt32) -> String {
        "0x" + String(tag, radix: 16, uppercase: true).leftPadded(to: 4)
    }

    private static let tagNames: [UInt32: String] = [
        0x0002: "Microsoft ADPCM", 0x0006: "A-law", 0x0007: "µ-law", 0x0011: "IMA ADPCM",
        0x0031: "GSM 6.10", 0x0050: "MPEG", 0x0055: "MPEG Layer 3", 0x00FF: "AAC",
        0x2000: "AC-3", 0xF1AC: "FLAC",
    ]
}
