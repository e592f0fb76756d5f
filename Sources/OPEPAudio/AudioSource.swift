/// A stream of mono audio, read in chunks.
///
/// Implementations keep memory bounded: they never load a whole file, and after opening
/// they allocate nothing except growth of the caller's output buffer.
public protocol AudioSource: AnyObject {
    /// Sample rate in Hz of the mono output.
    var sampleRate: Double { get }
    /// Description of what is being read, e.g. "WAV 24-bit integer, 2 channels, 44100 Hz".
    var formatDescription: String { get }
    /// Total frames if known (nil for pipes/stdin).
    var frameCount: Int? { get }
    /// Non-fatal problems, such as a data chunk shorter than its header declares.
    /// Problems found while reading are appended, so check again after the last read.
    var warnings: [String] { get }
    /// Reads up to `maxFrames` frames, mixed to mono (average of channels) as Float in [-1, 1],
    /// replacing the contents of `buffer`. Returns the number of frames read; 0 means end of stream.
    ///
    /// Fewer than `maxFrames` frames are returned only at the end of the stream.
    func read(into buffer: inout [Float], maxFrames: Int) throws(AudioInputError) -> Int
}

extension AudioSource {
    public var warnings: [String] { [] }
}

/// "1 channel, 44100 Hz" style suffix shared by format descriptions.
func describeLayout(channels: Int, sampleRate: Double) -> String {
    "\(channels) channel\(channels == 1 ? "" : "s"), \(formatRate(sampleRate)) Hz"
}

/// A sample rate without a spurious ".0".
func formatRate(_ rate: Double) -> String {
    rate.isFinite && rate == rate.rounded() && abs(rate) < 1e15 ? String(Int64(rate)) : String(rate)
}

/// Limits applied to every header and raw format.
enum AudioLimits {
    static let maxSampleRate = 768_000.0
    static let maxChannels = 1024

    static func validate(sampleRate: Double, channels: Int, path: String) throws(AudioInputError) {
        guard sampleRate.isFinite, sampleRate >= 1, sampleRate <= maxSampleRate else {
            throw .invalidParameter(path: path, name: "sample rate", value: formatRate(sampleRate), limit: "between 1 and 768000 Hz")
        }
        guard channels >= 1, channels <= maxChannels else {
            throw .invalidParameter(path: path, name: "channel count", value: "\(channels)", limit: "between 1 and \(maxChannels)")
        }
    }
}
