/// Streaming decoder for AIFF and AIFF-C files holding integer or float PCM.
///
/// Chunks may come in any order on seekable files; on pipes the COMM chunk must precede SSND.
final class AIFFDecoder: AudioSource {
    let sampleRate: Double
    let formatDescription: String
    let frameCount: Int?
    var warnings: [String] { reader.warnings }
    private let reader: PCMFrameReader

    private struct Common {
        var channels: Int
        var frames: UInt32
        var encoding: SampleEncoding
        var sampleRate: Double
        var compression: String?
    }

    private struct SoundData {
        /// Offset of the first audio byte.
        var start: UInt64
        /// Declared audio bytes, or nil when the writer left a placeholder.
        var declaredBytes: UInt64?
    }

    private static let maxCommonChunkSize: UInt32 = 1 << 16

    /// Parses the header from `stream`, leaving it positioned at the first audio frame.
    init(stream: ByteStream) throws(AudioInputError) {
        let path = stream.path
        let header = ByteReader(try stream.read(upTo: 12))
        guard header.count == 12 else { throw .truncatedHeader(path: path, expected: 12, actual: header.count) }
        let formType = header.fourCC(at: 8) ?? ""
        guard header.fourCC(at: 0) == "FORM", formType == "AIFF" || formType == "AIFC" else {
            throw .corrupt(path: path, reason: "not an AIFF header (form type '\(formType)')")
        }
        let isCompressedForm = formType == "AIFC"
        var common: Common?
        var sound: SoundData?

        while common == nil || sound == nil {
            let chunkStart = stream.position
            let chunkHeader = ByteReader(try stream.read(upTo: 8))
            guard chunkHeader.count == 8, let id = chunkHeader.fourCC(at: 0), let size = chunkHeader.uint32BE(at: 4) else {
                if let common, common.frames == 0 {
                    sound = SoundData(start: stream.position, declaredBytes: 0)
                    break
                }
                throw .corrupt(path: path, reason: common == nil ? "no COMM chunk" : "no SSND chunk")
            }
            switch id {
            case "COMM":
                guard common == nil else { throw .corrupt(path: path, reason: "more than one COMM chunk") }
                let bodyStart = stream.position
                if let available = stream.remainingInFile, UInt64(size) > available {
                    throw .truncatedHeader(path: path, expected: Int(clamping: bodyStart + UInt64(size)), actual: Int(clamping: bodyStart + available))
                }
                guard size <= Self.maxCommonChunkSize else {
                    throw .corrupt(path: path, reason: "COMM chunk at offset \(chunkStart) has implausible size \(size)")
                }
                let body = try stream.read(upTo: Int(size))
                guard body.count == Int(size) else {
                    throw .truncatedHeader(path: path, expected: Int(clamping: bodyStart + UInt64(size)), actual: Int(clamping: bodyStart) + body.count)
                }
                common = try Self.parseCommon(ByteReader(body), compressed: isCompressedForm, path: path)
                try stream.skip(UInt64(size & 1))
            case "SSND":
                guard sound == nil else { throw .corrupt(path: path, reason: "more than one SSND chunk") }
                let fields = ByteReader(try stream.read(upTo: 8))
                guard fields.count == 8, let offset = fields.uint32BE(at: 0) else {
                    throw .corrupt(path: path, reason: "SSND chunk at offset \(chunkStart) is too short")
                }
                let start = stream.position + UInt64(offset)
                let isPlaceholder = size == 0 || (0x7F00_0000...0x7F00_0008).contains(size)
                guard isPlaceholder || (size >= 8 && offset <= size - 8) else {
                    throw .corrupt(path: path, reason: "SSND data offset \(offset) exceeds the chunk size \(size)")
                }
                sound = SoundData(start: start, declaredBytes: isPlaceholder ? nil : UInt64(size - 8 - offset))
                if common == nil {
                    guard stream.isSeekable, !isPlaceholder else {
                        throw .corrupt(path: path, reason: "SSND chunk comes before the COMM chunk")
                    }
                    try Self.skipChunkBody(id: id, remaining: UInt64(size - 8), size: size, chunkStart: chunkStart, stream: stream)
                }
            default:
                try Self.skipChunkBody(id: id, remaining: UInt64(size), size: size, chunkStart: chunkStart, stream: stream)
            }
        }
        guard let common, let sound else { throw .corrupt(path: path, reason: "no COMM chunk") }

        if stream.position != sound.start {
            if stream.position < sound.start {
                try stream.skip(sound.start - stream.position)
            } else {
                try stream.seek(to: sound.start)
            }
        }
        let frameBytes = UInt64(common.encoding.bytesPerSample * common.channels)
        var warnings: [String] = []
        var dataBytes = sound.declaredBytes
        if let declared = dataBytes, common.frames > 0 {
            let commonBytes = UInt64(common.frames) * frameBytes
            if commonBytes < declared {
                dataBytes = commonBytes
            } else if commonBytes > declared {
                warnings.append("COMM declares \(common.frames) frames but SSND holds only \(declared / frameBytes)")
            }
        }
        if let declared = dataBytes, let available = stream.remainingInFile, declared > available {
            warnings.append("SSND chunk declares \(declared) bytes of audio but the file holds only \(available); decoding \(available / frameBytes) frames")
            dataBytes = available
        }
        let total = dataBytes ?? stream.remainingInFile
        self.frameCount = total.map { Int(clamping: $0 / frameBytes) }
        self.sampleRate = common.sampleRate
        let name = common.compression.map { "AIFF-C '\($0)'" } ?? "AIFF"
        self.formatDescription = "\(name) \(common.encoding.summary), " + describeLayout(channels: common.channels, sampleRate: common.sampleRate)
        self.reader = PCMFrameReader(stream: stream, encoding: common.encoding, channelCount: common.channels,
                                     dataBytes: dataBytes, warnings: warnings)
    }

    func read(into buffer: inout [Float], maxFrames: Int) throws(AudioInputError) -> Int {
        try reader.read(into: &buffer, maxFrames: maxFrames)
    }

    private static func skipChunkBody(id: String, remaining: UInt64, size: UInt32, chunkStart: UInt64, stream: ByteStream) throws(AudioInputError) {
        let skipped = try stream.skip(remaining)
        guard skipped == remaining else {
            throw .corrupt(path: stream.path, reason: "chunk '\(id)' at offset \(chunkStart) declares \(size) bytes but the file ends before it does")
        }
        try stream.skip(UInt64(size & 1))
    }

    private static func parseCommon(_ body: ByteReader, compressed: Bool, path: String) throws(AudioInputError) -> Common {
        guard let channels = body.uint16BE(at: 0), let frames = body.uint32BE(at: 2),
              let bits = body.uint16BE(at: 6), let rate = body.extended80(at: 8) else {
            throw .corrupt(path: path, reason: "COMM chunk is \(body.count) bytes; at least 18 are needed")
        }
        try AudioLimits.validate(sampleRate: rate, channels: Int(Int16(bitPattern: channels)), path: path)
        var compression: String?
        if compressed {
            guard let type = body.fourCC(at: 18) else {
                throw .corrupt(path: path, reason: "AIFF-C COMM chunk is \(body.count) bytes; at least 22 are needed")
            }
            compression = type
        }
        let integerBytes = (Int(bits) + 7) / 8
        let validIntegerSize = bits >= 1 && bits <= 32
        let encoding: SampleEncoding?
        switch compression ?? "NONE" {
        case "NONE", "twos":
            encoding = validIntegerSize ? .integer(bytes: integerBytes, order: .big, unsignedBytes: false) : nil
        case "sowt":
            encoding = validIntegerSize ? .integer(bytes: integerBytes, order: .little, unsignedBytes: false) : nil
        case "raw ":
            encoding = bits == 8 ? .unsigned8 : nil
        case "in24": encoding = .signed24(.big)
        case "in32": encoding = .signed32(.big)
        case "23ni": encoding = .signed24(.little)
        case "42ni": encoding = .signed32(.little)
        case "fl32", "FL32": encoding = .float32(.big)
        case "fl64", "FL64": encoding = .float64(.big)
        case let other:
            throw .unsupportedEncoding(path: path, format: "AIFF-C", detail: "compression type '\(other)'\(compressionName(body).map { " (\($0))" } ?? "")")
        }
        guard let encoding else {
            throw .unsupportedEncoding(path: path, format: compressed ? "AIFF-C" : "AIFF", detail: "\(bits)-bit samples with compression '\(compression ?? "NONE")'")
        }
        return Common(channels: Int(channels), frames: frames, encoding: encoding, sampleRate: rate, compression: compression)
    }

    /// The Pascal-string compression name following the type in an AIFF-C COMM chunk.
    private static func compressionName(_ body: ByteReader) -> String? {
        guard let length = body.uint8(at: 22), length > 0, body.count >= 23 + Int(length) else { return nil }
        return String(decoding: body.bytes[23..<(23 + Int(length))], as: UTF8.self)
    }
}
