import Foundation
import OPEPAudio
import OPEPSimulation

/// Why a session could not go through its codec.
public enum CodecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// ffmpeg is not on the PATH.
    case ffmpegMissing
    /// ffmpeg ended with a non-zero status.
    case ffmpegFailed(step: String, status: Int32)

    public var description: String {
        switch self {
        case .ffmpegMissing:
            "ffmpeg is not on the PATH: the random corpus's codecs need it (install ffmpeg)"
        case let .ffmpegFailed(step, status):
            "ffmpeg failed to \(step) (exit status \(status))"
        }
    }
}

/// Sends audio through a ``RecordingChain/Codec`` with ffmpeg and back, at the same sample rate
/// and aligned with the input: the encoder's delay is measured once per codec and rate by
/// cross-correlating a probe and dropped from the start.
enum CodecRoundTrip {
    /// The full path of ffmpeg, nil when it is not on the PATH.
    static let ffmpeg = FFmpegTools.locate("ffmpeg")

    /// `audio` (mono, `sampleRate` Hz) encoded with `codec`, decoded and aligned: the same count.
    static func process(_ audio: [Float], codec: RecordingChain.Codec, sampleRate: Double) throws(CodecError) -> [Float] {
        let delay = try measuredDelay(codec: codec, sampleRate: sampleRate)
        let decoded = try roundTrip(audio, codec: codec, sampleRate: sampleRate)
        return (0..<audio.count).map { i in
            let j = i + delay
            return j >= 0 && j < decoded.count ? decoded[j] : 0
        }
    }

    /// Samples the round trip adds before the input's first sample (negative: removes).
    static func measuredDelay(codec: RecordingChain.Codec, sampleRate: Double) throws(CodecError) -> Int {
        let key = "\(codec)@\(sampleRate)"
        if let known = delays.withLock({ $0[key] }) { return known }
        var generator = SeededGenerator(seed: 99)
        let count = Int(sampleRate)
        let burst = Int(0.3 * sampleRate)..<Int(0.35 * sampleRate)
        let probe: [Float] = (0..<count).map { i in
            guard burst.contains(i) else { return 0 }
            let x = Double(i - burst.lowerBound) / Double(burst.count)
            return Float(0.3 * sin(Double.pi * x) * (2 * generator.nextUnit() - 1))
        }
        let decoded = try roundTrip(probe, codec: codec, sampleRate: sampleRate)
        let delay = bestLag(reference: probe, signal: decoded, within: Int(0.03 * sampleRate))
        delays.withLock { $0[key] = delay }
        return delay
    }

    private static let delays = Locked<[String: Int]>([:])

    /// The lag in `-limit...limit` at which `signal` best matches `reference`.
    static func bestLag(reference: [Float], signal: [Float], within limit: Int) -> Int {
        var best = (lag: 0, score: -Double.infinity)
        for lag in -limit...limit {
            var sum = 0.0
            for i in 0..<reference.count where reference[i] != 0 {
                let j = i + lag
                if j >= 0, j < signal.count { sum += Double(reference[i]) * Double(signal[j]) }
            }
            if sum > best.score { best = (lag, sum) }
        }
        return best.lag
    }

    private static func roundTrip(_ audio: [Float], codec: RecordingChain.Codec, sampleRate: Double) throws(CodecError) -> [Float] {
        guard let ffmpeg else { throw .ffmpegMissing }
        let rate = String(Int(sampleRate))
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("opep-codec-\(UUID().uuidString)").path
        let raw = base + ".f32"
        let encoded = base + "." + fileExtension(codec)
        defer {
            try? FileManager.default.removeItem(atPath: raw)
            try? FileManager.default.removeItem(atPath: encoded)
        }
        guard FileManager.default.createFile(atPath: raw, contents: audio.withUnsafeBufferPointer { Data(buffer: $0) }) else {
            throw .ffmpegFailed(step: "write its input to \(raw)", status: -1)
        }
        _ = try run(
            ffmpeg, ["-f", "f32le", "-ar", rate, "-ac", "1", "-i", raw] + encoderArguments(codec) + ["-y", encoded],
            step: "encode")
        let output = try run(
            ffmpeg, ["-i", encoded, "-f", "f32le", "-acodec", "pcm_f32le", "-ac", "1", "-ar", rate, "pipe:1"],
            step: "decode")
        return output.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    private static func fileExtension(_ codec: RecordingChain.Codec) -> String {
        switch codec {
        case .aac: "m4a"
        case .opus: "ogg"
        case .telephone: "wav"
        }
    }

    private static func encoderArguments(_ codec: RecordingChain.Codec) -> [String] {
        switch codec {
        case let .aac(bitrate): ["-c:a", "aac", "-b:a", String(bitrate)]
        case let .opus(bitrate): ["-c:a", "libopus", "-b:a", String(bitrate)]
        case .telephone: ["-af", "highpass=f=300:poles=2,lowpass=f=3400:poles=2", "-ar", "8000", "-c:a", "pcm_mulaw"]
        }
    }

    private static func run(_ ffmpeg: String, _ arguments: [String], step: String) throws(CodecError) -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = FFmpegTools.sameOnEveryProcessor + ["-v", "error", "-nostdin"] + arguments
        let output = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw .ffmpegFailed(step: step, status: -1)
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw .ffmpegFailed(step: step, status: process.terminationStatus) }
        return data
    }
}

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
