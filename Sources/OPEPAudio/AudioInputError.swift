/// Why an audio input could not be opened, read or written.
///
/// Every case carries the path ("-" for standard input) and the specifics;
/// `description` is a one-line message naming the file and the problem.
public enum AudioInputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing exists at `path`.
    case fileNotFound(path: String)
    /// The file exists but could not be opened or read.
    case unreadable(path: String, reason: String)
    /// The file has no bytes at all.
    case empty(path: String)
    /// The file ends inside its header.
    case truncatedHeader(path: String, expected: Int, actual: Int)
    /// The header is inconsistent or impossible.
    case corrupt(path: String, reason: String)
    /// A recognised container holding a sample encoding this module does not decode.
    case unsupportedEncoding(path: String, format: String, detail: String)
    /// A header field or caller-supplied parameter is out of range.
    case invalidParameter(path: String, name: String, value: String, limit: String)
    /// The file needs ffmpeg, which is not on the PATH.
    case ffmpegMissing(path: String)
    /// ffmpeg exited with a non-zero status; `message` is the first line it printed.
    case ffmpegFailed(path: String, status: Int32, message: String)
    /// Raw PCM (such as standard input) needs an explicit sample rate and encoding.
    case rawFormatRequired(path: String)
    /// The file could not be created or written.
    case unwritable(path: String, reason: String)

    /// The path the error is about.
    public var path: String {
        switch self {
        case .fileNotFound(let path), .unreadable(let path, _), .empty(let path),
             .truncatedHeader(let path, _, _), .corrupt(let path, _),
             .unsupportedEncoding(let path, _, _), .invalidParameter(let path, _, _, _),
             .ffmpegMissing(let path), .ffmpegFailed(let path, _, _),
             .rawFormatRequired(let path), .unwritable(let path, _):
            return path
        }
    }

    public var description: String {
        let name = path == "-" ? "standard input" : path
        switch self {
        case .fileNotFound:
            return "\(name): file not found"
        case .unreadable(_, let reason):
            return "\(name): cannot read file: \(reason)"
        case .empty:
            return "\(name): file is empty"
        case .truncatedHeader(_, let expected, let actual):
            return "\(name): header is truncated (needs \(expected) bytes, file has \(actual))"
        case .corrupt(_, let reason):
            return "\(name): corrupt audio file: \(reason)"
        case .unsupportedEncoding(_, let format, let detail):
            return "\(name): unsupported \(format) encoding: \(detail)"
        case .invalidParameter(_, let parameter, let value, let limit):
            return "\(name): invalid \(parameter) \(value) (must be \(limit))"
        case .ffmpegMissing:
            return "\(name): not a WAV, AIFF or CAF file; install ffmpeg to decode other formats"
        case .ffmpegFailed(_, let status, let message):
            return "\(name): ffmpeg failed (exit status \(status)): \(message)"
        case .rawFormatRequired:
            return "\(name): raw PCM input needs --sample-rate and --encoding"
        case .unwritable(_, let reason):
            return "\(name): cannot write file: \(reason)"
        }
    }
}
