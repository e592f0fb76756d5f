import Foundation

/// Opens audio files, pipes and standard input as streaming `AudioSource`s.
public enum AudioInput {
    /// Opens `path` for streaming.
    ///
    /// The container is detected from its first bytes, not the extension: WAV (RIFF, RF64, BW64),
    /// AIFF/AIFF-C and CAF are decoded natively; anything else, and PCM-less encodings inside those
    /// containers, is decoded by `ffmpeg` when it is on the PATH.
    ///
    /// - Parameters:
    ///   - path: a file path, or "-" for standard input (which needs `raw`).
    ///   - raw: when given, the input is read as headerless PCM in this format.
    public static func open(path: String, raw: RawPCMFormat? = nil) throws(AudioInputError) -> any AudioSource {
        if path == "-" {
            guard let raw else { throw .rawFormatRequired(path: path) }
            return try RawPCMDecoder(stream: stdinStream(), format: raw)
        }
        let stream = try ByteStream(path: path)
        if let raw {
            guard try stream.fill(atLeast: 1) > 0 else { throw .empty(path: path) }
            return try RawPCMDecoder(stream: stream, format: raw)
        }
        do {
            if let source = try openContainer(stream) { return source }
        } catch {
            guard case .unsupportedEncoding(let path, let format, let detail) = error, stream.isSeekable else { throw error }
            guard let ffmpeg = FFmpegTools.locate("ffmpeg") else {
                throw .unsupportedEncoding(path: path, format: format, detail: detail + "; install ffmpeg to decode it")
            }
            do {
                return try decodeWithFFmpeg(path: path, ffmpeg: ffmpeg)
            } catch let ffmpegError {
                throw .unsupportedEncoding(path: path, format: format, detail: detail + "; ffmpeg could not decode it either: \(ffmpegError.description)")
            }
        }
        guard stream.isSeekable else {
            throw .unsupportedEncoding(path: path, format: "unknown", detail: "not a WAV, AIFF or CAF stream, and ffmpeg needs a regular file")
        }
        guard let ffmpeg = FFmpegTools.locate("ffmpeg") else { throw .ffmpegMissing(path: path) }
        return try decodeWithFFmpeg(path: path, ffmpeg: ffmpeg)
    }

    /// Opens an already open handle, such as `FileHandle.standardInput` or the reading end of a `Pipe`.
    ///
    /// The handle is read sequentially and never closed. With `raw` it is read as headerless PCM;
    /// without, it must carry a WAV, AIFF or CAF header (streaming writers' placeholder sizes are fine).
    ///
    /// - Parameter name: how errors and warnings refer to the input ("-" reads as "standard input").
    public static func open(fileHandle: FileHandle, name: String = "-", raw: RawPCMFormat? = nil) throws(AudioInputError) -> any AudioSource {
        try open(fileHandle: fileHandle, name: name, raw: raw, bufferBytes: ByteStream.defaultCapacity)
    }

    /// ``open(fileHandle:name:raw:)`` reading through a buffer of `bufferBytes` (at least 64):
    /// with small buffers every header field and sample may straddle two reads, which is what a
    /// fuzzer needs to reach (`OPEPFuzzTargets`).
    @_spi(Fuzzing)
    public static func open(fileHandle: FileHandle, name: String, raw: RawPCMFormat?, bufferBytes: Int) throws(AudioInputError) -> any AudioSource {
        let stream = ByteStream(handle: fileHandle, path: name, fileSize: nil, closesHandle: false, capacity: bufferBytes)
        if let raw { return try RawPCMDecoder(stream: stream, format: raw) }
        guard let source = try openContainer(stream) else { throw .rawFormatRequired(path: name) }
        return source
    }

    /// A native decoder for `stream`, or nil when the container is not WAV, AIFF or CAF.
    static func openContainer(_ stream: ByteStream) throws(AudioInputError) -> (any AudioSource)? {
        let head = try stream.peek(12)
        guard !head.isEmpty else { throw .empty(path: stream.path) }
        guard head.count == 12 else { throw .truncatedHeader(path: stream.path, expected: 12, actual: head.count) }
        let magic = ByteReader(head)
        switch (magic.fourCC(at: 0), magic.fourCC(at: 8)) {
        case ("RIFF", "WAVE"), ("RF64", "WAVE"), ("BW64", "WAVE"):
            return try WAVDecoder(stream: stream)
        case ("FORM", "AIFF"), ("FORM", "AIFC"):
            return try AIFFDecoder(stream: stream)
        case ("caff", _):
            return try CAFDecoder(stream: stream)
        default:
            return nil
        }
    }

    private static func stdinStream() -> ByteStream {
        ByteStream(handle: .standardInput, path: "-", fileSize: nil, closesHandle: false)
    }

    private static func decodeWithFFmpeg(path: String, ffmpeg: String) throws(AudioInputError) -> any AudioSource {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        throw .ffmpegMissing(path: path)
        #else
        return try FFmpegDecoder(path: path, ffmpeg: ffmpeg)
        #endif
    }
}
