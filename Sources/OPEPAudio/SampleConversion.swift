/// Byte order of multi-byte samples.
enum ByteOrder: Equatable, Sendable {
    case little, big
}

/// How one PCM sample is stored.
enum SampleEncoding: Equatable, Sendable {
    case unsigned8
    case signed8
    case signed16(ByteOrder)
    case signed24(ByteOrder)
    case signed32(ByteOrder)
    case float32(ByteOrder)
    case float64(ByteOrder)

    /// An integer encoding for samples stored in `bytes` bytes (signed except 8-bit unsigned).
    static func integer(bytes: Int, order: ByteOrder, unsignedBytes: Bool) -> SampleEncoding? {
        switch bytes {
        case 1: return unsignedBytes ? .unsigned8 : .signed8
        case 2: return .signed16(order)
        case 3: return .signed24(order)
        case 4: return .signed32(order)
        default: return nil
        }
    }

    /// A float encoding for samples of `bytes` bytes.
    static func float(bytes: Int, order: ByteOrder) -> SampleEncoding? {
        switch bytes {
        case 4: return .float32(order)
        case 8: return .float64(order)
        default: return nil
        }
    }

    var bytesPerSample: Int {
        switch self {
        case .unsigned8, .signed8: return 1
        case .signed16: return 2
        case .signed24: return 3
        case .signed32, .float32: return 4
        case .float64: return 8
        }
    }

    var isFloat: Bool {
        switch self {
        case .float32, .float64: return true
        default: return false
        }
    }

    /// For example "24-bit integer", "8-bit unsigned integer", "32-bit big-endian float".
    var summary: String {
        let bits = "\(bytesPerSample * 8)-bit"
        switch self {
        case .unsigned8: return "\(bits) unsigned integer"
        case .signed8: return "\(bits) signed integer"
        case .signed16(let order), .signed24(let order), .signed32(let order):
            return order == .big ? "\(bits) big-endian integer" : "\(bits) integer"
        case .float32(let order), .float64(let order):
            return order == .big ? "\(bits) big-endian float" : "\(bits) float"
        }
    }

    /// Decodes `frames` interleaved frames of `channels` samples from `source`, writing their
    /// channel average to `destination`. `source` must hold at least `frames * channels * bytesPerSample` bytes.
    func decode(_ source: UnsafeRawBufferPointer, frames: Int, channels: Int, into destination: UnsafeMutablePointer<Float>) {
        guard frames > 0, channels > 0, let base = source.baseAddress,
              source.count >= frames * channels * bytesPerSample else { return }
        switch self {
        case .unsigned8:
            mix(base, frames, channels, 1, destination, scale: 1 / 128, offset: -128) { Float($0.load(as: UInt8.self)) }
        case .signed8:
            mix(base, frames, channels, 1, destination, scale: 1 / 128) { Float($0.load(as: Int8.self)) }
        case .signed16(.little):
            mix(base, frames, channels, 2, destination, scale: 1 / 32768) { Float(Int16(littleEndian: $0.loadUnaligned(as: Int16.self))) }
        case .signed16(.big):
            mix(base, frames, channels, 2, destination, scale: 1 / 32768) { Float(Int16(bigEndian: $0.loadUnaligned(as: Int16.self))) }
        case .signed24(.little):
            mix(base, frames, channels, 3, destination, scale: 1 / 8_388_608) { pointer in
                let bits = UInt32(pointer.load(as: UInt8.self)) << 8
                    | UInt32(pointer.load(fromByteOffset: 1, as: UInt8.self)) << 16
                    | UInt32(pointer.load(fromByteOffset: 2, as: UInt8.self)) << 24
                return Float(Int32(bitPattern: bits) >> 8)
            }
        case .signed24(.big):
            mix(base, frames, channels, 3, destination, scale: 1 / 8_388_608) { pointer in
                let bits = UInt32(pointer.load(as: UInt8.self)) << 24
                    | UInt32(pointer.load(fromByteOffset: 1, as: UInt8.self)) << 16
                    | UInt32(pointer.load(fromByteOffset: 2, as: UInt8.self)) << 8
                return Float(Int32(bitPattern: bits) >> 8)
            }
        case .signed32(.little):
            mix(base, frames, channels, 4, destination, scale: 1 / 2_147_483_648) { Float(Int32(littleEndian: $0.loadUnaligned(as: Int32.self))) }
        case .signed32(.big):
            mix(base, frames, channels, 4, destination, scale: 1 / 2_147_483_648) { Float(Int32(bigEndian: $0.loadUnaligned(as: Int32.self))) }
        case .float32(.little):
            mix(base, frames, channels, 4, destination, scale: 1) { Float(bitPattern: UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
        case .float32(.big):
            mix(base, frames, channels, 4, destination, scale: 1) { Float(bitPattern: UInt32(bigEndian: $0.loadUnaligned(as: UInt32.self))) }
        case .float64(.little):
            mix(base, frames, channels, 8, destination, scale: 1) { Float(Double(bitPattern: UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)))) }
        case .float64(.big):
            mix(base, frames, channels, 8, destination, scale: 1) { Float(Double(bitPattern: UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)))) }
        }
        if isFloat {
            for index in 0..<frames {
                let value = destination[index]
                destination[index] = value.isNaN ? 0 : Swift.min(Swift.max(value, -1), 1)
            }
        }
    }
}

@inline(__always)
private func mix(
    _ base: UnsafeRawPointer, _ frames: Int, _ channels: Int, _ width: Int,
    _ destination: UnsafeMutablePointer<Float>, scale: Float, offset: Float = 0,
    _ load: (UnsafeRawPointer) -> Float
) {
    if channels == 1 {
        for index in 0..<frames {
            destination[index] = (load(base + index &* width) + offset) * scale
        }
        return
    }
    let gain = scale / Float(channels)
    let bias = offset * Float(channels)
    let frameWidth = width &* channels
    for index in 0..<frames {
        let frame = base + index &* frameWidth
        var sum: Float = 0
        for channel in 0..<channels {
            sum += load(frame + channel &* width)
        }
        destination[index] = (sum + bias) * gain
    }
}

/// Reads interleaved PCM frames from a byte stream and mixes them to mono.
///
/// Shared by every decoder once its header is parsed. Memory is bounded by the
/// stream's buffer; the caller's output array is the only thing that grows.
final class PCMFrameReader {
    let stream: ByteStream
    let encoding: SampleEncoding
    let channelCount: Int
    let frameBytes: Int
    private(set) var warnings: [String]
    private var remainingBytes: UInt64?
    private var finished = false

    /// - Parameters:
    ///   - dataBytes: bytes of audio left in the stream, or nil to read until the input ends.
    ///   - warnings: problems already found while parsing the header.
    init(stream: ByteStream, encoding: SampleEncoding, channelCount: Int, dataBytes: UInt64?, warnings: [String] = []) {
        self.stream = stream
        self.encoding = encoding
        self.channelCount = channelCount
        self.frameBytes = encoding.bytesPerSample * channelCount
        self.remainingBytes = dataBytes
        self.warnings = warnings
    }

    func read(into buffer: inout [Float], maxFrames: Int) throws(AudioInputError) -> Int {
        buffer.removeAll(keepingCapacity: true)
        let framesPerPass = max(1, ByteStream.defaultCapacity / frameBytes)
        while buffer.count < maxFrames && !finished {
            var wanted = min(maxFrames - buffer.count, framesPerPass)
            if let remainingBytes {
                wanted = Int(min(UInt64(wanted), remainingBytes / UInt64(frameBytes)))
                if wanted == 0 {
                    finish(leftover: Int(remainingBytes))
                    break
                }
            }
            let available = try stream.fill(atLeast: wanted * frameBytes)
            let frames = min(wanted, available / frameBytes)
            guard frames > 0 else {
                finish(leftover: available)
                break
            }
            let start = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: frames))
            stream.withBufferedBytes { source in
                buffer.withUnsafeMutableBufferPointer { output in
                    guard let base = output.baseAddress else { return }
                    encoding.decode(source, frames: frames, channels: channelCount, into: base + start)
                }
            }
            let used = frames * frameBytes
            stream.consume(used)
            remainingBytes = remainingBytes.map { $0 - UInt64(used) }
        }
        return buffer.count
    }

    private func finish(leftover: Int) {
        finished = true
        if let remainingBytes, remainingBytes >= UInt64(frameBytes) {
            warnings.append("input ended \(remainingBytes) bytes before the end of the audio data declared in the header; decoded what is present")
        } else if leftover > 0 {
            warnings.append("ignored \(leftover) trailing bytes that do not form a complete \(channelCount)-channel frame")
        }
    }
}
