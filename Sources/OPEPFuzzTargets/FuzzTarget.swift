import Foundation
import OPEPCalibration
import OPEPKit
@_spi(Fuzzing) import OPEPAudio

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The entry points of the engine, the decoders, the JSON the engine reads and the manometer's CSV
/// (`opep calibrate`): they need neither the history nor the server, so their fuzzer builds in a
/// few minutes (CI runs them briefly); the session document, `/live` and the HTTP routes are
/// `ServerFuzzTarget`s.
///
/// The audio targets take their first two bytes as the reading's shape (how many frames each read
/// asks for, how large the stream's buffer is), so the fuzzer also explores chunked reads; the rest
/// is the file.
public enum FuzzTarget: String, CaseIterable, FuzzEntryPoint {
    /// A WAV (RIFF, RF64, BW64) file, streamed.
    case wav
    /// An AIFF or AIFF-C file, streamed.
    case aiff
    /// A CAF file, streamed.
    case caf
    /// Headerless PCM: the third byte picks encoding, channels and rate.
    case rawPCM = "raw-pcm"
    /// 32-bit float samples (any bit pattern: NaN, infinities, subnormals) through the whole engine at 16 kHz.
    case engine
    /// The therapy plan's JSON (`PUT /api/plan`, the history), decoded and validated.
    case plan
    /// A device profile's JSON (`--device`, `opep calibrate`), decoded and validated.
    case deviceProfile = "device-profile"
    /// A manometer's CSV (`opep calibrate`): parsed, aligned with a minute of breaths, fitted, and
    /// when it spans at most ``manometerFlutterSpan`` its pressure's flutter tracked.
    case manometer

    /// Every one of them, as entry points.
    public static let entryPoints: [any FuzzEntryPoint] = allCases

    @discardableResult
    public func run(_ bytes: UnsafeRawBufferPointer) -> Bool {
        switch self {
        case .wav, .aiff, .caf: return Self.decode(bytes, raw: false)
        case .rawPCM: return Self.decode(bytes, raw: true)
        case .engine: return Self.analyse(bytes)
        case .plan: return (try? JSONDecoder().decode(TherapyPlan.self, from: Data(bytes)).validate()) != nil
        case .deviceProfile: return (try? JSONDecoder().decode(DeviceProfile.self, from: Data(bytes)).validate()) != nil
        case .manometer: return Self.calibrate(bytes)
        }
    }

    /// The longest trace, in seconds, whose pressure's flutter the `manometer` target tracks: the
    /// tracker takes about 0.1 ms per second of trace, and an input may take at most 1 s.
    public static let manometerFlutterSpan = 600.0

    /// A minute of a recording as `opep calibrate` hears it: breaths of 3 s every 6 s, and a pitch
    /// every 10 ms while they last, rising through each breath.
    static let heard: (envelope: [(time: Double, value: Double)], pitches: [PitchSample]) = {
        var envelope: [(time: Double, value: Double)] = []
        var pitches: [PitchSample] = []
        for step in 0..<6000 {
            let time = Double(step) / 100
            let within = time.truncatingRemainder(dividingBy: 6)
            let exhaling = within >= 1 && within < 4
            envelope.append((time, exhaling ? 1 : 0))
            if exhaling { pitches.append(PitchSample(time: time, pitch: 12 + 4 * within)) }
        }
        return (envelope, pitches)
    }()

    private static func calibrate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let trace = try? ManometerTrace.parse(csv: String(decoding: bytes, as: UTF8.self)) else { return false }
        let offset = (try? OffsetSearch.find(envelope: heard.envelope, manometer: trace, threshold: 5))?.offset ?? 0
        _ = try? Calibration.fit(pitches: heard.pitches, manometer: trace, offset: offset, recordingRange: 0...60, alignment: "auto", exhaling: 5)
        if trace.timeRange.upperBound - trace.timeRange.lowerBound <= manometerFlutterSpan {
            _ = try? PressureFlutter.track(trace, band: 10...40)
        }
        return true
    }

    /// Frames asked for by each read, by the shape byte's low nibble.
    static let readSizes = [1, 2, 3, 7, 16, 61, 256, 1000, 4096, 4097, 8192, 1, 5, 64, 511, 2048]
    /// Stream buffers, in bytes, by the shape byte's high nibble.
    static let bufferSizes = [64, 65, 100, 128, 255, 256, 1000, 1024, 4096, 4099, 8192, 16384, 65536, 64, 77, 512]
    /// Raw encodings, channel counts and rates, by the raw target's format byte.
    static let rawRates = [8000.0, 16000, 44100, 48000, 0, -1, 1e9, .nan]

    private static func decode(_ bytes: UnsafeRawBufferPointer, raw: Bool) -> Bool {
        guard bytes.count >= (raw ? 3 : 2) else { return false }
        let shape = bytes[0]
        let maxFrames = readSizes[Int(shape & 0x0F)]
        let bufferBytes = bufferSizes[Int(shape >> 4)] + Int(bytes[1] & 0x07)
        var format: RawPCMFormat?
        if raw {
            let byte = Int(bytes[2])
            let encodings = RawSampleEncoding.allCases
            format = RawPCMFormat(
                sampleRate: rawRates[(byte >> 4) & 0x07], encoding: encodings[(byte & 0x0F) % encodings.count], channelCount: (byte >> 7) + 1)
        }
        let file = UnsafeRawBufferPointer(rebasing: bytes[(raw ? 3 : 2)...])
        guard let handle = memoryFile(file) else { return false }
        defer { try? handle.close() }
        guard let source = try? AudioInput.open(fileHandle: handle, name: "fuzz", raw: format, bufferBytes: bufferBytes) else { return false }
        var buffer: [Float] = []
        var frames = 0
        while true {
            guard let read = try? source.read(into: &buffer, maxFrames: maxFrames) else { return false }
            if read == 0 { break }
            frames += read
            // No native encoding holds more than one frame per byte: more would be samples made up
            // (a reader that never ends is a hang).
            precondition(frames <= file.count + maxFrames, "\(frames) frames from \(file.count) bytes")
        }
        _ = source.warnings
        return frames > 0
    }

    private static func analyse(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var run = try? AnalysisRun(configuration: .init(sampleRate: 16000)) else { return false }
        let count = bytes.count / 4
        var samples = [Float](repeating: 0, count: count)
        for index in 0..<count {
            samples[index] = Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))
        }
        // In odd chunks, as audio arrives.
        var start = 0
        var step = 1
        while start < count {
            let end = min(count, start + step)
            run.process(Array(samples[start..<end])) { _ in }
            start = end
            step = step * 3 + 1
        }
        _ = run.finish { _ in }
        return count > 0
    }

    /// The bytes as an anonymous temporary file, read from its start.
    private static func memoryFile(_ bytes: UnsafeRawBufferPointer) -> FileHandle? {
        guard let file = tmpfile() else { return nil }
        defer { fclose(file) }
        if bytes.count > 0, fwrite(bytes.baseAddress, 1, bytes.count, file) != bytes.count { return nil }
        guard fflush(file) == 0 else { return nil }
        let descriptor = dup(fileno(file))
        guard descriptor >= 0, lseek(descriptor, 0, SEEK_SET) == 0 else { return nil }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }
}
