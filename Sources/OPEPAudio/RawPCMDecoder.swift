/// Sample encodings for headerless PCM, named as ffmpeg and sox name them.
public enum RawSampleEncoding: String, CaseIterable, Sendable {
    case u8, s8
    case s16le, s16be
    case s24le, s24be
    case s32le, s32be
    case f32le, f32be
    case f64le, f64be

    /// Bytes occupied by one sample.
    public var bytesPerSample: Int { sampleEncoding.bytesPerSample }

    var sampleEncoding: SampleEncoding {
        switch self {
        case .u8: return .unsigned8
        case .s8: return .signed8
        case .s16le: return .signed16(.little)
        case .s16be: return .signed16(.big)
        case .s24le: return .signed24(.little)
        case .s24be: return .signed24(.big)
        case .s32le: return .signed32(.little)
        case .s32be: return .signed32(.big)
        case .f32le: return .float32(.little)
        case .f32be: return .float32(.big)
        case .f64le: return .float64(.little)
        case .f64be: return .float64(.big)
        }
    }
}

/// The layout of headerless, interleaved PCM.
public struct RawPCMFormat: Equatable, Sendable {
    /// Frames per second.
    public var sampleRate: Double
    /// How each sample is stored.
    public var encoding: RawSampleEncoding
    /// Interleaved channels per frame.
    public var channelCount: Int

    public init(sampleRate: Double, encoding: RawSampleEncoding, channelCount: Int = 1) {
        self.sampleRate = sampleRate
        self.encoding = encoding
        self.channelCount = channelCount
    }
}

/// Streaming decoder for headerless PCM from a file, a pipe or standard input.
/// A partial frame at the end of the input is dropped with a warning.
final class RawPCMDecoder: AudioSource {
    let sampleRate: Double
    let formatDescription: String
    let frameCount: Int?
    var warnings: [String] { reader.warnings }
    private let reader: PCMFrameReader

    init(stream: ByteStream, format: RawPCMFormat) throws(AudioInputError) {
        try AudioLimits.validate(sampleRate: format.sampleRate, channels: format.channelCount, path: stream.path)
        let encoding = format.encoding.sampleEncoding
        let frameBytes = UInt64(encoding.bytesPerSample * format.channelCount)
        self.sampleRate = format.sampleRate
        self.frameCount = stream.remainingInFile.map { Int(clamping: $0 / frameBytes) }
        self.formatDescription = "raw PCM \(format.encoding.rawValue), " + describeLayout(channels: format.channelCount, sampleRate: format.sampleRate)
        self.reader = PCMFrameReader(stream: stream, encoding: encoding, channelCount: format.channelCount, dataBytes: nil)
    }

    func read(into buffer: inout [Float], maxFrames: Int) throws(AudioInputError) -> Int {
        try reader.read(into: &buffer, maxFrames: maxFrames)
    }
}
