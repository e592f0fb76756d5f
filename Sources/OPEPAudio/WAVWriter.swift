import Foundation

/// Writes a WAV file incrementally, holding only one conversion buffer in memory.
///
/// Integer encodings use WAVE_FORMAT_PCM for up to 16 bits and 2 channels, float uses
/// WAVE_FORMAT_IEEE_FLOAT, and wider or multichannel files use WAVE_FORMAT_EXTENSIBLE,
/// as Microsoft recommends. Sizes are patched by `finish()`.
public final class WAVWriter {
    /// Sample encoding of the written file.
    public enum Encoding: String, CaseIterable, Sendable {
        case int16, int24, float32

        var bytesPerSample: Int {
            switch self {
            case .int16: return 2
            case .int24: return 3
            case .float32: return 4
            }
        }
    }

    /// Path of the file being written.
    public let path: String
    /// Frames per second.
    public let sampleRate: Int
    /// Interleaved channels per frame.
    public let channelCount: Int
    /// Sample encoding.
    public let encoding: Encoding
    /// Frames written so far.
    public private(set) var framesWritten = 0

    private let handle: FileHandle
    private let dataSizeOffset: UInt64
    private let factSampleCountOffset: UInt64?
    private var bytes: [UInt8]
    private var dataBytes: UInt64 = 0
    private var isFinished = false

    private static let samplesPerChunk = 8192
    private static let maxDataBytes = UInt64(UInt32.max) - 4096

    /// Creates (or truncates) the file at `path` and writes a provisional header.
    public init(path: String, sampleRate: Int, channelCount: Int = 1, encoding: Encoding = .int16) throws(AudioInputError) {
        guard sampleRate >= 1, Double(sampleRate) <= AudioLimits.maxSampleRate else {
            throw .invalidParameter(path: path, name: "sample rate", value: "\(sampleRate)", limit: "between 1 and 768000 Hz")
        }
        guard channelCount >= 1, channelCount <= AudioLimits.maxChannels else {
            throw .invalidParameter(path: path, name: "channel count", value: "\(channelCount)", limit: "between 1 and \(AudioLimits.maxChannels)")
        }
        self.path = path
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.encoding = encoding
        self.bytes = [UInt8](repeating: 0, count: Self.samplesPerChunk * encoding.bytesPerSample)

        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw .unwritable(path: path, reason: "cannot create the file")
        }
        self.handle = handle

        let isFloat = encoding == .float32
        let extensible = channelCount > 2 || encoding == .int24
        let blockAlign = channelCount * encoding.bytesPerSample
        var header = HeaderBuilder()
        header.fourCC("RIFF"); header.u32(0); header.fourCC("WAVE")
        header.fourCC("fmt ")
        header.u32(extensible ? 40 : (isFloat ? 18 : 16))
        header.u16(extensible ? 0xFFFE : (isFloat ? 3 : 1))
        header.u16(UInt16(channelCount))
        header.u32(UInt32(sampleRate))
        header.u32(UInt32(sampleRate * blockAlign))
        header.u16(UInt16(blockAlign))
        header.u16(UInt16(encoding.bytesPerSample * 8))
        if extensible {
            header.u16(22)
            header.u16(UInt16(encoding.bytesPerSample * 8))
            header.u32(0)
            header.u32(isFloat ? 3 : 1)
            header.bytes += [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        } else if isFloat {
            header.u16(0)
        }
        if isFloat {
            header.fourCC("fact"); header.u32(4)
            factSampleCountOffset = UInt64(header.bytes.count)
            header.u32(0)
        } else {
            factSampleCountOffset = nil
        }
        header.fourCC("data")
        dataSizeOffset = UInt64(header.bytes.count)
        header.u32(0)
        try perform { try handle.write(contentsOf: header.bytes) }
    }

    deinit {
        if !isFinished { try? finish() }
    }

    /// Appends samples, interleaved when `channelCount > 1`. Integer encodings clip to [-1, 1].
    public func write(_ samples: [Float]) throws(AudioInputError) {
        guard !isFinished else { throw .unwritable(path: path, reason: "write after finish()") }
        guard samples.count % channelCount == 0 else {
            throw .invalidParameter(path: path, name: "sample count", value: "\(samples.count)", limit: "a multiple of the channel count \(channelCount)")
        }
        let width = encoding.bytesPerSample
        guard dataBytes + UInt64(samples.count * width) <= Self.maxDataBytes else {
            throw .unwritable(path: path, reason: "WAV files cannot exceed 4 GiB")
        }
        var start = 0
        while start < samples.count {
            let count = min(Self.samplesPerChunk, samples.count - start)
            samples.withUnsafeBufferPointer { source in
                bytes.withUnsafeMutableBytes { destination in
                    Self.encode(UnsafeBufferPointer(rebasing: source[start..<(start + count)]), as: encoding, into: destination)
                }
            }
            try perform { try handle.write(contentsOf: bytes[0..<(count * width)]) }
            start += count
        }
        dataBytes += UInt64(samples.count * width)
        framesWritten += samples.count / channelCount
    }

    /// Pads the data chunk, patches the RIFF, fact and data sizes, and closes the file.
    /// Calling it again does nothing.
    public func finish() throws(AudioInputError) {
        guard !isFinished else { return }
        isFinished = true
        let padding: [UInt8] = dataBytes % 2 == 1 ? [0] : []
        try perform {
            try handle.write(contentsOf: padding)
            let riffSize = UInt32(dataSizeOffset + 4 + dataBytes + UInt64(padding.count) - 8)
            try patch(riffSize, at: 4)
            if let factSampleCountOffset { try patch(UInt32(framesWritten), at: factSampleCountOffset) }
            try patch(UInt32(dataBytes), at: dataSizeOffset)
            try handle.close()
        }
    }

    private func patch(_ value: UInt32, at offset: UInt64) throws {
        try handle.seek(toOffset: offset)
        var field = HeaderBuilder()
        field.u32(value)
        try handle.write(contentsOf: field.bytes)
    }

    private func perform(_ body: () throws -> Void) throws(AudioInputError) {
        do {
            try body()
        } catch {
            throw .unwritable(path: path, reason: error.localizedDescription)
        }
    }

    private static func encode(_ samples: UnsafeBufferPointer<Float>, as encoding: Encoding, into bytes: UnsafeMutableRawBufferPointer) {
        switch encoding {
        case .int16:
            for (index, sample) in samples.enumerated() {
                let value = Int16((clipped(sample) * 32767).rounded())
                bytes.storeBytes(of: value.littleEndian, toByteOffset: index * 2, as: Int16.self)
            }
        case .int24:
            for (index, sample) in samples.enumerated() {
                let value = UInt32(bitPattern: Int32((clipped(sample) * 8_388_607).rounded()))
                bytes[index * 3] = UInt8(truncatingIfNeeded: value)
                bytes[index * 3 + 1] = UInt8(truncatingIfNeeded: value >> 8)
                bytes[index * 3 + 2] = UInt8(truncatingIfNeeded: value >> 16)
            }
        case .float32:
            for (index, sample) in samples.enumerated() {
                bytes.storeBytes(of: (sample.isNaN ? 0 : sample).bitPattern.littleEndian, toByteOffset: index * 4, as: UInt32.self)
            }
        }
    }

    @inline(__always)
    private static func clipped(_ sample: Float) -> Float {
        sample.isNaN ? 0 : min(max(sample, -1), 1)
    }
}

/// Little-endian header bytes.
private struct HeaderBuilder {
    var bytes: [UInt8] = []

    mutating func fourCC(_ code: StaticString) {
        code.withUTF8Buffer { bytes += $0.prefix(4) }
    }

    mutating func u16(_ value: UInt16) {
        bytes += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }

    mutating func u32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
}
