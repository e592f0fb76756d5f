/// Streaming decoder for Core Audio Format files holding linear PCM ('lpcm').
final class CAFDecoder: AudioSource {
    let sampleRate: Double
    let formatDescription: String
    let frameCount: Int?
    var warnings: [String] { reader.warnings }
    private let reader: PCMFrameReader

    private struct Description {
        var encoding: SampleEncoding
        var channels: Int
        var sampleRate: Double
    }

    private static let isFloatFlag: UInt32 = 1 << 0
    private static let isLittleEndianFlag: UInt32 = 1 << 1
    private static let unknownSize = UInt64.max

    /// Parses the header from `stream`, leaving it positioned at the first audio frame.
    init(stream: ByteStream) throws(AudioInputError) {
        let path = stream.path
        let header = ByteReader(try stream.read(upTo: 8))
        guard header.count == 8 else { throw .truncatedHeader(path: path, expected: 8, actual: header.count) }
        guard header.fourCC(at: 0) == "caff" else {
            throw .corrupt(path: path, reason: "not a CAF header (starts with '\(header.fourCC(at: 0) ?? "")')")
        }
        guard header.uint16BE(at: 4) == 1 else {
            throw .unsupportedEncoding(path: path, format: "CAF", detail: "file version \(header.uint16BE(at: 4) ?? 0) (only version 1 exists)")
        }
        var description: Description?

        while true {
            let chunkStart = stream.position
            let chunkHeader = ByteReader(try stream.read(upTo: 12))
            guard chunkHeader.count == 12, let type = chunkHeader.fourCC(at: 0), let size = chunkHeader.uint64BE(at: 4) else {
                throw .corrupt(path: path, reason: description == nil ? "no desc chunk" : "no data chunk")
            }
            switch type {
            case "desc":
                guard description == nil else { throw .corrupt(path: path, reason: "more than one desc chunk") }
                guard size >= 32 else { throw .corrupt(path: path, reason: "desc chunk is \(size) bytes; 32 are needed") }
                let body = ByteReader(try stream.read(upTo: 32))
                guard body.count == 32 else {
                    throw .truncatedHeader(path: path, expected: Int(clamping: stream.position) + 32 - body.count, actual: Int(clamping: stream.position))
                }
                description = try Self.parseDescription(body, path: path)
                try Self.skip(size - 32, of: type, at: chunkStart, stream: stream)
            case "data":
                guard let description else { throw .corrupt(path: path, reason: "data chunk comes before the desc chunk") }
                let editCount = try stream.read(upTo: 4)
                guard editCount.count == 4 else {
                    throw .corrupt(path: path, reason: "data chunk at offset \(chunkStart) ends before its edit count")
                }
                let frameBytes = UInt64(description.encoding.bytesPerSample * description.channels)
                var warnings: [String] = []
                var dataBytes: UInt64?
                if size != Self.unknownSize && size != 0 {
                    guard size >= 4 else { throw .corrupt(path: path, reason: "data chunk size \(size) is smaller than its edit count") }
                    dataBytes = size - 4
                }
                if let declared = dataBytes, let available = stream.remainingInFile, declared > available {
                    warnings.append("data chunk declares \(declared) bytes but the file holds only \(available); decoding \(available / frameBytes) frames")
                    dataBytes = available
                }
                let total = dataBytes ?? stream.remainingInFile
                self.frameCount = total.map { Int(clamping: $0 / frameBytes) }
                self.sampleRate = description.sampleRate
                self.formatDescription = "CAF lpcm \(description.encoding.summary), "
                    + describeLayout(channels: description.channels, sampleRate: description.sampleRate)
                self.reader = PCMFrameReader(stream: stream, encoding: description.encoding, channelCount: description.channels,
                                             dataBytes: dataBytes, warnings: warnings)
                return
            default:
                guard size != Self.unknownSize else {
                    throw .corrupt(path: path, reason: "chunk '\(type)' at offset \(chunkStart) has unknown size but is not the data chunk")
                }
                try Self.skip(size, of: type, at: chunkStart, stream: stream)
            }
        }
    }

    func read(into buffer: inout [Float], maxFrames: Int) throws(AudioInputError) -> Int {
        try reader.read(into: &buffer, maxFrames: maxFrames)
    }

    private static func skip(_ count: UInt64, of type: String, at chunkStart: UInt64, stream: ByteStream) throws(AudioInputError) {
        let skipped = try stream.skip(count)
        guard skipped == count else {
            throw .corrupt(path: stream.path, reason: "chunk '\(type)' at offset \(chunkStart) extends \(count - skipped) bytes past the end of the file")
        }
    }

    private static func parseDescription(_ body: ByteReader, path: String) throws(AudioInputError) -> Description {
        guard let rate = body.float64BE(at: 0), let formatID = body.fourCC(at: 8), let flags = body.uint32BE(at: 12),
              let bytesPerPacket = body.uint32BE(at: 16), let framesPerPacket = body.uint32BE(at: 20),
              let channels = body.uint32BE(at: 24), let bits = body.uint32BE(at: 28) else {
            throw .corrupt(path: path, reason: "desc chunk is \(body.count) bytes; 32 are needed")
        }
        guard formatID == "lpcm" else {
            throw .unsupportedEncoding(path: path, format: "CAF", detail: "audio format '\(formatID)' is not linear PCM ('lpcm')")
        }
        try AudioLimits.validate(sampleRate: rate, channels: Int(clamping: channels), path: path)
        let order: ByteOrder = flags & isLittleEndianFlag != 0 ? .little : .big
        let isFloat = flags & isFloatFlag != 0
        let sampleBytes = bits % 8 == 0 ? Int(bits / 8) : 0
        let encoding: SampleEncoding? = isFloat
            ? .float(bytes: sampleBytes, order: order)
            : .integer(bytes: sampleBytes, order: order, unsignedBytes: false)
        guard let encoding else {
            throw .unsupportedEncoding(path: path, format: "CAF", detail: "\(bits)-bit \(isFloat ? "float" : "integer") samples")
        }
        let expectedPacket = UInt64(sampleBytes) * UInt64(channels)
        guard framesPerPacket == 1, UInt64(bytesPerPacket) == expectedPacket else {
            throw .unsupportedEncoding(path: path, format: "CAF", detail: "\(bytesPerPacket) bytes and \(framesPerPacket) frames per packet for \(channels) channels of \(bits)-bit samples")
        }
        return Description(encoding: encoding, channels: Int(channels), sampleRate: rate)
    }
}
