import Foundation

/// Sequential, buffered byte input over a `FileHandle`.
///
/// One fixed buffer is allocated at creation and reused for every read; header parsing
/// copies out small arrays, audio decoding converts straight from the buffer.
final class ByteStream {
    /// The path (or "-") used in errors.
    let path: String
    /// Size of the underlying file, or nil for pipes and terminals.
    let fileSize: UInt64?
    /// Absolute offset of the next unconsumed byte.
    private(set) var position: UInt64 = 0

    private let handle: FileHandle
    private let closesHandle: Bool
    private var storage: [UInt8]
    private var head = 0
    private var tail = 0
    private(set) var reachedEnd = false

    static let defaultCapacity = 1 << 16

    /// Wraps `handle`. `fileSize` must be given only for seekable regular files positioned at offset 0.
    init(handle: FileHandle, path: String, fileSize: UInt64?, closesHandle: Bool, capacity: Int = ByteStream.defaultCapacity) {
        self.handle = handle
        self.path = path
        self.fileSize = fileSize
        self.closesHandle = closesHandle
        self.storage = [UInt8](repeating: 0, count: max(capacity, 64))
    }

    /// Opens a file for reading, classifying failures as typed errors.
    convenience init(path: String) throws(AudioInputError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .fileNotFound(path: path)
        }
        guard !isDirectory.boolValue else { throw .unreadable(path: path, reason: "it is a directory") }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw .unreadable(path: path, reason: "permission denied")
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: error.localizedDescription)
        }
        var size: UInt64?
        if let end = try? handle.seekToEnd() {
            do {
                try handle.seek(toOffset: 0)
                size = end
            } catch {
                throw .unreadable(path: path, reason: error.localizedDescription)
            }
        }
        self.init(handle: handle, path: path, fileSize: size, closesHandle: true)
    }

    deinit {
        if closesHandle { try? handle.close() }
    }

    /// Whether `seek(to:)` and cheap skipping are available.
    var isSeekable: Bool { fileSize != nil }

    /// Bytes left between the current position and the end of the file, when known.
    var remainingInFile: UInt64? {
        fileSize.map { $0 > position ? $0 - position : 0 }
    }

    /// Buffers at least `count` bytes (at most the buffer capacity) unless the input ends first.
    /// Returns the number of bytes buffered.
    @discardableResult
    func fill(atLeast count: Int) throws(AudioInputError) -> Int {
        let wanted = min(count, storage.count)
        while tail - head < wanted && !reachedEnd {
            if head > 0 {
                let pending = tail - head
                if pending > 0 {
                    storage.withUnsafeMutableBufferPointer { buffer in
                        guard let base = buffer.baseAddress else { return }
                        base.update(from: base + head, count: pending)
                    }
                }
                head = 0
                tail = pending
            }
            let data: Data?
            do {
                data = try handle.read(upToCount: storage.count - tail)
            } catch {
                throw .unreadable(path: path, reason: error.localizedDescription)
            }
            guard let data, !data.isEmpty else {
                reachedEnd = true
                break
            }
            let received = min(data.count, storage.count - tail)
            storage.withUnsafeMutableBytes { buffer in
                let destination = UnsafeMutableRawBufferPointer(rebasing: buffer[tail..<(tail + received)])
                data.copyBytes(to: destination, count: received)
            }
            tail += received
        }
        return tail - head
    }

    /// Calls `body` with the buffered, unconsumed bytes.
    func withBufferedBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        storage.withUnsafeBytes { bytes in
            body(UnsafeRawBufferPointer(rebasing: bytes[head..<tail]))
        }
    }

    /// Marks `count` buffered bytes as consumed.
    func consume(_ count: Int) {
        let used = min(count, tail - head)
        head += used
        position += UInt64(used)
    }

    /// Reads up to `count` bytes; fewer only at the end of the input.
    func read(upTo count: Int) throws(AudioInputError) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(count)
        while result.count < count {
            let available = try fill(atLeast: count - result.count)
            guard available > 0 else { break }
            let taken = min(available, count - result.count)
            result.append(contentsOf: storage[head..<(head + taken)])
            consume(taken)
        }
        return result
    }

    /// The first `count` buffered bytes without consuming them (fewer at the end of the input).
    func peek(_ count: Int) throws(AudioInputError) -> [UInt8] {
        let available = try fill(atLeast: count)
        return Array(storage[head..<(head + min(available, count))])
    }

    /// Skips `count` bytes, seeking when possible. Returns the number of bytes actually skipped.
    @discardableResult
    func skip(_ count: UInt64) throws(AudioInputError) -> UInt64 {
        let fromBuffer = Int(min(count, UInt64(tail - head)))
        consume(fromBuffer)
        var rest = count - UInt64(fromBuffer)
        guard rest > 0 else { return count }
        if let remaining = remainingInFile {
            let target = position + min(rest, remaining)
            try seek(to: target)
            return UInt64(fromBuffer) + min(rest, remaining)
        }
        while rest > 0 {
            let available = try fill(atLeast: Int(min(rest, UInt64(storage.count))))
            guard available > 0 else { break }
            let used = Int(min(rest, UInt64(available)))
            consume(used)
            rest -= UInt64(used)
        }
        return count - rest
    }

    /// Moves to an absolute offset of a seekable file.
    func seek(to offset: UInt64) throws(AudioInputError) {
        guard let fileSize else {
            throw .corrupt(path: path, reason: "the layout requires seeking, which this input does not support")
        }
        let bufferStart = position - UInt64(head)
        if offset >= bufferStart && offset <= bufferStart + UInt64(tail) {
            head = Int(offset - bufferStart)
            position = offset
            return
        }
        do {
            try handle.seek(toOffset: min(offset, fileSize))
        } catch {
            throw .unreadable(path: path, reason: error.localizedDescription)
        }
        position = min(offset, fileSize)
        head = 0
        tail = 0
        reachedEnd = false
    }
}

/// Bounds-checked field access over a header chunk. Reads past the end yield nil.
struct ByteReader {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var count: Int { bytes.count }

    func uint8(at offset: Int) -> UInt8? {
        offset >= 0 && offset < bytes.count ? bytes[offset] : nil
    }

    private func unsigned(at offset: Int, size: Int, bigEndian: Bool) -> UInt64? {
        guard offset >= 0, size <= bytes.count, offset <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for index in 0..<size {
            let byte = UInt64(bytes[bigEndian ? offset + index : offset + size - 1 - index])
            value = value << 8 | byte
        }
        return value
    }

    func uint16LE(at offset: Int) -> UInt16? { unsigned(at: offset, size: 2, bigEndian: false).map { UInt16($0) } }
    func uint32LE(at offset: Int) -> UInt32? { unsigned(at: offset, size: 4, bigEndian: false).map { UInt32($0) } }
    func uint64LE(at offset: Int) -> UInt64? { unsigned(at: offset, size: 8, bigEndian: false) }
    func uint16BE(at offset: Int) -> UInt16? { unsigned(at: offset, size: 2, bigEndian: true).map { UInt16($0) } }
    func uint32BE(at offset: Int) -> UInt32? { unsigned(at: offset, size: 4, bigEndian: true).map { UInt32($0) } }
    func uint64BE(at offset: Int) -> UInt64? { unsigned(at: offset, size: 8, bigEndian: true) }

    func float64BE(at offset: Int) -> Double? { uint64BE(at: offset).map(Double.init(bitPattern:)) }

    /// A four-character code, with non-printable bytes escaped.
    func fourCC(at offset: Int) -> String? {
        guard let value = uint32BE(at: offset) else { return nil }
        return FourCC.string(value)
    }

    /// An 80-bit IEEE 754 extended-precision big-endian float (AIFF sample rates).
    func extended80(at offset: Int) -> Double? {
        guard let signAndExponent = uint16BE(at: offset), let mantissa = uint64BE(at: offset + 2) else { return nil }
        let exponent = Int(signAndExponent & 0x7FFF)
        if exponent == 0 && mantissa == 0 { return 0 }
        guard exponent != 0x7FFF else { return .nan }
        let magnitude = Double(sign: .plus, exponent: exponent - 16383 - 63, significand: Double(mantissa))
        return signAndExponent & 0x8000 != 0 ? -magnitude : magnitude
    }
}

/// Four-character codes as used by RIFF, AIFF and CAF.
enum FourCC {
    static func string(_ value: UInt32) -> String {
        var text = ""
        for shift in stride(from: 24, through: 0, by: -8) {
            let byte = UInt8(truncatingIfNeeded: value >> UInt32(shift))
            if byte >= 0x20 && byte < 0x7F {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "\\x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return text
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
