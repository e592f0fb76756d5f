import Foundation
import TestTools
import XCTest
@testable import OPEPAudio

/// A temporary directory removed when the test case finishes.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("opep-audio-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func write(_ bytes: [UInt8], to name: String) throws -> String {
        let file = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }
}

/// Runs external tools found on the PATH.
enum Tool {
    static func path(_ name: String) -> String? { FFmpegTools.locate(name) }

    static func require(_ name: String) throws -> String {
        guard let path = path(name) else { throw missingTool("\(name) is not installed") }
        return path
    }

    /// Runs `name` with `arguments`; standard output goes through a pipe into `stdoutPath` if given,
    /// so tools see a non-seekable output.
    @discardableResult
    static func run(_ name: String, _ arguments: [String], stdoutPath: String? = nil) throws -> String {
        let executable = try require(name)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        let errorLog = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("tool-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorLog) }
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorLog)
        try process.run()
        try output.fileHandleForWriting.close()
        let text = try output.fileHandleForReading.readToEnd() ?? Data()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
            throw NSError(domain: "Tool", code: Int(process.terminationStatus), userInfo: [
                NSLocalizedDescriptionKey: "\(name) \(arguments.joined(separator: " ")) failed: \(message)",
            ])
        }
        if let stdoutPath { try text.write(to: URL(fileURLWithPath: stdoutPath)) }
        return String(decoding: text, as: UTF8.self)
    }
}

/// The reference signal: 0.5 s with a 440 Hz sine at 0.5 in channel 1, 1000 Hz at 0.3 in channel 2
/// and, for three channels, 150 Hz at 0.2 in channel 3.
struct TestSignal {
    static let sampleRate = 44100
    static let frameCount = sampleRate / 2

    let channels: Int
    let interleaved: [Float]

    init(channels: Int) {
        self.channels = channels
        let tones: [(frequency: Double, amplitude: Double)] = [(440, 0.5), (1000, 0.3), (150, 0.2)]
        var samples: [Float] = []
        samples.reserveCapacity(Self.frameCount * channels)
        for frame in 0..<Self.frameCount {
            let time = Double(frame) / Double(Self.sampleRate)
            for channel in 0..<channels {
                let tone = tones[channel % tones.count]
                samples.append(Float(tone.amplitude * sin(2 * .pi * tone.frequency * time)))
            }
        }
        interleaved = samples
    }

    /// The channel average, which every source must deliver.
    var mono: [Float] {
        (0..<Self.frameCount).map { frame in
            var sum: Float = 0
            for channel in 0..<channels { sum += interleaved[frame * channels + channel] }
            return sum / Float(channels)
        }
    }

    /// Writes the signal as raw little-endian float32, the input to sox and ffmpeg.
    func writeRawFloat(to path: String) throws {
        let bytes = interleaved.flatMap { sample -> [UInt8] in
            let bits = sample.bitPattern
            return [UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8),
                    UInt8(truncatingIfNeeded: bits >> 16), UInt8(truncatingIfNeeded: bits >> 24)]
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}

/// Reads a source to the end in chunks of `chunk` frames.
func readAll(_ source: any AudioSource, chunk: Int = 4096) throws(AudioInputError) -> [Float] {
    var all: [Float] = []
    var buffer: [Float] = []
    while true {
        let count = try source.read(into: &buffer, maxFrames: chunk)
        XCTAssertEqual(count, buffer.count)
        XCTAssertLessThanOrEqual(count, chunk)
        if count == 0 { break }
        all += buffer
    }
    return all
}

/// Fails, without printing whole arrays, unless `actual` equals `expected` sample for sample.
func assertSameSamples(_ actual: [Float], _ expected: [Float], _ message: String, file: StaticString = #filePath, line: UInt = #line) {
    guard actual != expected else { return }
    let index = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(actual.count, expected.count)
    XCTFail("\(message): \(actual.count) samples vs \(expected.count) expected, first difference at \(index)", file: file, line: line)
}

func maxDifference(_ a: [Float], _ b: [Float]) -> Float {
    zip(a, b).reduce(0) { max($0, abs($1.0 - $1.1)) }
}

func rms(_ samples: [Float]) -> Float {
    guard !samples.isEmpty else { return 0 }
    return (samples.reduce(0) { $0 + $1 * $1 } / Float(samples.count)).squareRoot()
}

/// Power of one frequency (Goertzel), normalised by length.
func tonePower(_ samples: [Float], frequency: Double, sampleRate: Double) -> Double {
    let coefficient = 2 * cos(2 * .pi * frequency / sampleRate)
    var previous = 0.0, beforePrevious = 0.0
    for sample in samples {
        let current = Double(sample) + coefficient * previous - beforePrevious
        beforePrevious = previous
        previous = current
    }
    let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
    return power / Double(samples.count * samples.count)
}

/// A small deterministic generator (SplitMix64) for fuzzing.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Asserts that `body` throws an `AudioInputError` matching `predicate`.
func assertAudioError(
    _ body: @autoclosure () throws(AudioInputError) -> Any?,
    _ message: String,
    file: StaticString = #filePath, line: UInt = #line,
    where predicate: (AudioInputError) -> Bool
) {
    do {
        _ = try body()
        XCTFail("\(message): expected an error", file: file, line: line)
    } catch {
        XCTAssertTrue(predicate(error), "\(message): unexpected \(error)", file: file, line: line)
        XCTAssertFalse(error.description.isEmpty)
        XCTAssertFalse(error.description.contains("\n"), "description must be one line: \(error.description)")
    }
}
