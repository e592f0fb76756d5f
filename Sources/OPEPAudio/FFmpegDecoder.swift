import Foundation

/// Locates ffmpeg and ffprobe on the PATH, and what makes ffmpeg decode alike on every machine.
public enum FFmpegTools {
    /// ffmpeg's options that keep its decoders, filters and resampler to plain C code. By default
    /// ffmpeg picks their vector code (SSE, AVX2, FMA, AVX-512) from the processor it runs on, and
    /// those routines round differently: on an Intel Xeon with AVX-512, one AAC and one Opus file
    /// decoded with AVX and FMA turned off, and one MP3 file with SSE turned off, each came out
    /// with other bits than by default. With these options one ffmpeg decodes a file to the same
    /// samples on any x86-64 machine, so its analysis is the same too. The plain code takes about
    /// a fifth longer: an hour of mono AAC in 2.6 s against 2.2 s, of MP3 in 3.4 s against 2.8 s,
    /// on that machine.
    public static let sameOnEveryProcessor = ["-cpuflags", "0"]

    /// Whether this platform can spawn processes at all.
    static var canSpawnProcesses: Bool {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        return false
        #else
        return true
        #endif
    }

    /// The full path of an executable named `name` found on the PATH.
    public static func locate(_ name: String) -> String? {
        guard canSpawnProcesses, let searchPath = ProcessInfo.processInfo.environment["PATH"] else { return nil }
        for directory in searchPath.split(separator: ":") where !directory.isEmpty {
            let candidate = String(directory) + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS))

/// Decodes any format ffmpeg understands by streaming its 32-bit float WAV output through a pipe.
///
/// ffmpeg keeps the native sample rate and channel layout; channels are averaged here like every
/// other source. Its standard error goes to an unlinked temporary file, so that a chatty decoder
/// can never block on a full pipe and nothing is left behind.
final class FFmpegDecoder: AudioSource {
    let sampleRate: Double
    let formatDescription: String
    let frameCount: Int? = nil
    var warnings: [String] { decoder.warnings + ffmpegWarnings }

    private let path: String
    private let process: Process
    private let output: FileHandle
    private let errorLog: FileHandle
    private let decoder: WAVDecoder
    private var ffmpegWarnings: [String] = []
    private var exitChecked = false

    /// Starts ffmpeg on `path` and parses the header of its output.
    init(path: String, ffmpeg: String) throws(AudioInputError) {
        self.path = path
        let source = "file:" + URL(fileURLWithPath: path).path
        let logURL = FileManager.default.temporaryDirectory.appendingPathComponent("opep-ffmpeg-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: logURL.path, contents: nil),
              let logWriter = FileHandle(forWritingAtPath: logURL.path),
              let logReader = FileHandle(forReadingAtPath: logURL.path) else {
            try? FileManager.default.removeItem(at: logURL)
            throw .ffmpegFailed(path: path, status: -1, message: "cannot create a log file in \(FileManager.default.temporaryDirectory.path)")
        }
        defer { try? FileManager.default.removeItem(at: logURL) }
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = FFmpegTools.sameOnEveryProcessor + [
            "-v", "error", "-nostdin", "-i", source, "-map", "0:a:0",
            "-map_metadata", "-1", "-flags", "+bitexact", "-f", "wav", "-acodec", "pcm_f32le", "-",
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = pipe
        process.standardError = logWriter
        do {
            try process.run()
        } catch {
            throw .ffmpegFailed(path: path, status: -1, message: "cannot launch \(ffmpeg): \(error.localizedDescription)")
        }
        try? logWriter.close()
        try? pipe.fileHandleForWriting.close()
        self.process = process
        self.output = pipe.fileHandleForReading
        self.errorLog = logReader

        let stream = ByteStream(handle: output, path: path, fileSize: nil, closesHandle: false)
        do {
            decoder = try WAVDecoder(stream: stream)
        } catch {
            guard stream.reachedEnd else {
                try? output.close()
                process.terminate()
                throw error
            }
            process.waitUntilExit()
            let status = process.terminationStatus
            let message = Self.firstLine(of: logReader)
            if status != 0 || !message.isEmpty {
                throw .ffmpegFailed(path: path, status: status, message: message.isEmpty ? "no output" : message)
            }
            throw error
        }
        sampleRate = decoder.sampleRate
        let codec = Self.codecName(of: source)
        formatDescription = "\(codec.map { "\($0) " } ?? "")decoded by ffmpeg, "
            + describeLayout(channels: decoder.channelCount, sampleRate: decoder.sampleRate)
    }

    deinit {
        try? output.close()
        if process.isRunning { process.terminate() }
        try? errorLog.close()
    }

    func read(into buffer: inout [Float], maxFrames: Int) throws(AudioInputError) -> Int {
        let count = try decoder.read(into: &buffer, maxFrames: maxFrames)
        if count == 0 && maxFrames > 0 && !exitChecked {
            exitChecked = true
            process.waitUntilExit()
            let message = Self.firstLine(of: errorLog)
            guard process.terminationStatus == 0 else {
                throw .ffmpegFailed(path: path, status: process.terminationStatus, message: message.isEmpty ? "no message" : message)
            }
            if !message.isEmpty { ffmpegWarnings.append("ffmpeg reported: \(message)") }
        }
        return count
    }

    private static func firstLine(of log: FileHandle) -> String {
        try? log.seek(toOffset: 0)
        let head = ((try? log.read(upToCount: 4096)) ?? nil) ?? Data()
        let text = String(decoding: head, as: UTF8.self)
        return text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
    }

    /// The codec of the first audio stream according to ffprobe, if available.
    private static func codecName(of source: String) -> String? {
        guard let ffprobe = FFmpegTools.locate("ffprobe") else { return nil }
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffprobe)
        process.arguments = ["-v", "quiet", "-select_streams", "a:0", "-show_entries", "stream=codec_name",
                             "-of", "default=noprint_wrappers=1:nokey=1", source]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        try? pipe.fileHandleForWriting.close()
        let data = (try? pipe.fileHandleForReading.readToEnd()) ?? nil
        process.waitUntilExit()
        guard process.terminationStatus == 0, let data else { return nil }
        let name = String(decoding: data.prefix(64), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return name.isEmpty || name.contains("\n") ? nil : name
    }
}

#endif
