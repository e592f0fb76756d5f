import Foundation
import XCTest
@testable import OPEPAudio

/// Files written by sox and ffmpeg in every supported encoding, decoded and compared
/// with the reference signal.
final class FormatMatrixTests: XCTestCase {
    private struct Case {
        var name: String
        var file: String
        var arguments: [String]
        var channels = 2
        var tolerance: Float
        var describes: String
    }

    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    private func source(channels: Int) throws -> (path: String, signal: TestSignal) {
        let signal = TestSignal(channels: channels)
        let path = directory.path("source-\(channels).f32")
        if !FileManager.default.fileExists(atPath: path) { try signal.writeRawFloat(to: path) }
        return (path, signal)
    }

    private func soxInput(_ channels: Int) throws -> [String] {
        ["-D", "-t", "f32", "-r", "\(TestSignal.sampleRate)", "-c", "\(channels)", try source(channels: channels).path]
    }

    private func ffmpegInput(_ channels: Int) throws -> [String] {
        ["-v", "error", "-nostdin", "-y", "-f", "f32le", "-ar", "\(TestSignal.sampleRate)", "-ac", "\(channels)", "-i", try source(channels: channels).path]
    }

    private func check(_ testCase: Case, file: StaticString = #filePath, line: UInt = #line) throws {
        let signal = try source(channels: testCase.channels).signal
        let decoded: [Float]
        let audio: any AudioSource
        do {
            audio = try AudioInput.open(path: testCase.file)
            decoded = try readAll(audio)
        } catch {
            XCTFail("\(testCase.name): \(error)", file: file, line: line)
            return
        }
        XCTAssertEqual(audio.sampleRate, Double(TestSignal.sampleRate), testCase.name, file: file, line: line)
        XCTAssertEqual(audio.frameCount, TestSignal.frameCount, testCase.name, file: file, line: line)
        XCTAssertEqual(decoded.count, TestSignal.frameCount, testCase.name, file: file, line: line)
        XCTAssertLessThanOrEqual(maxDifference(decoded, signal.mono), testCase.tolerance, testCase.name, file: file, line: line)
        XCTAssertTrue(audio.formatDescription.hasPrefix(testCase.describes),
                      "\(testCase.name): description '\(audio.formatDescription)'", file: file, line: line)
        XCTAssertTrue(audio.formatDescription.hasSuffix("\(testCase.channels) channels, 44100 Hz"), audio.formatDescription, file: file, line: line)
        XCTAssertEqual(audio.warnings, [], testCase.name, file: file, line: line)
    }

    func testSoxWAV() throws {
        _ = try Tool.require("sox")
        let cases: [(String, [String], Int, Float, String)] = [
            ("u8", ["-e", "unsigned", "-b", "8"], 2, 0.01, "WAV 8-bit unsigned integer"),
            ("s16", ["-e", "signed", "-b", "16"], 2, 1e-4, "WAV 16-bit integer"),
            ("s24 extensible", ["-e", "signed", "-b", "24"], 2, 1e-6, "WAV (extensible) 24-bit integer"),
            ("s24 plain", ["-e", "signed", "-b", "24", "-t", "wavpcm"], 2, 1e-6, "WAV 24-bit integer"),
            ("s32", ["-e", "signed", "-b", "32"], 2, 1e-6, "WAV (extensible) 32-bit integer"),
            ("f32", ["-e", "floating-point", "-b", "32"], 2, 1e-6, "WAV 32-bit float"),
            ("f64", ["-e", "floating-point", "-b", "64"], 2, 1e-6, "WAV 64-bit float"),
            ("s16 3ch extensible", ["-e", "signed", "-b", "16"], 3, 1e-4, "WAV (extensible) 16-bit integer"),
        ]
        for (name, options, channels, tolerance, describes) in cases {
            let file = directory.path("sox-\(name).wav")
            try Tool.run("sox", try soxInput(channels) + options + [file])
            try check(Case(name: "sox WAV \(name)", file: file, arguments: options, channels: channels, tolerance: tolerance, describes: describes))
        }
    }

    func testSoxAIFFAndCAF() throws {
        _ = try Tool.require("sox")
        let cases: [(String, String, [String], Float, String)] = [
            ("aiff 8", "aiff", ["-e", "signed", "-b", "8"], 0.01, "AIFF 8-bit signed integer"),
            ("aiff 16", "aiff", ["-e", "signed", "-b", "16"], 1e-4, "AIFF 16-bit big-endian integer"),
            ("aiff 24", "aiff", ["-e", "signed", "-b", "24"], 1e-6, "AIFF 24-bit big-endian integer"),
            ("aiff 32", "aiff", ["-e", "signed", "-b", "32"], 1e-6, "AIFF 32-bit big-endian integer"),
            ("aifc none", "aifc", ["-e", "signed", "-b", "16"], 1e-4, "AIFF-C 'NONE' 16-bit big-endian integer"),
            ("aifc fl32", "aifc", ["-e", "floating-point", "-b", "32"], 1e-6, "AIFF-C 'fl32' 32-bit big-endian float"),
            ("aifc fl64", "aifc", ["-e", "floating-point", "-b", "64"], 1e-6, "AIFF-C 'fl64' 64-bit big-endian float"),
            ("caf 16", "caf", ["-e", "signed", "-b", "16"], 1e-4, "CAF lpcm 16-bit big-endian integer"),
            ("caf 24", "caf", ["-e", "signed", "-b", "24"], 1e-6, "CAF lpcm 24-bit big-endian integer"),
            ("caf f32", "caf", ["-e", "floating-point", "-b", "32"], 1e-6, "CAF lpcm 32-bit big-endian float"),
        ]
        for (name, type, options, tolerance, describes) in cases {
            let file = directory.path("sox-\(name).\(type)")
            try Tool.run("sox", try soxInput(2) + options + ["-t", type, file])
            try check(Case(name: "sox \(name)", file: file, arguments: options, tolerance: tolerance, describes: describes))
        }
    }

    func testFFmpegPCM() throws {
        _ = try Tool.require("ffmpeg")
        let cases: [(String, String, [String], Int, Float, String)] = [
            ("wav u8", "wav", ["-c:a", "pcm_u8"], 2, 0.01, "WAV 8-bit unsigned integer"),
            ("wav s16", "wav", ["-c:a", "pcm_s16le"], 2, 1e-4, "WAV 16-bit integer"),
            ("wav s24", "wav", ["-c:a", "pcm_s24le"], 2, 1e-6, "WAV (extensible) 24-bit integer"),
            ("wav s32", "wav", ["-c:a", "pcm_s32le"], 2, 1e-6, "WAV (extensible) 32-bit integer"),
            ("wav f32", "wav", ["-c:a", "pcm_f32le"], 2, 1e-6, "WAV (extensible) 32-bit float"),
            ("wav f64", "wav", ["-c:a", "pcm_f64le"], 2, 1e-6, "WAV (extensible) 64-bit float"),
            ("wav s24 3ch extensible", "wav", ["-c:a", "pcm_s24le"], 3, 1e-6, "WAV (extensible) 24-bit integer"),
            ("rf64 s16", "wav", ["-c:a", "pcm_s16le", "-rf64", "always"], 2, 1e-4, "RF64 16-bit integer"),
            ("aiff s8", "aiff", ["-c:a", "pcm_s8"], 2, 0.01, "AIFF 8-bit signed integer"),
            ("aiff s16", "aiff", ["-c:a", "pcm_s16be"], 2, 1e-4, "AIFF 16-bit big-endian integer"),
            ("aiff s24", "aiff", ["-c:a", "pcm_s24be"], 2, 1e-6, "AIFF 24-bit big-endian integer"),
            ("aiff s32", "aiff", ["-c:a", "pcm_s32be"], 2, 1e-6, "AIFF 32-bit big-endian integer"),
            ("aifc sowt", "aiff", ["-c:a", "pcm_s16le"], 2, 1e-4, "AIFF-C 'sowt' 16-bit integer"),
            ("aifc fl32", "aiff", ["-c:a", "pcm_f32be"], 2, 1e-6, "AIFF-C 'fl32' 32-bit big-endian float"),
            ("aifc fl64", "aiff", ["-c:a", "pcm_f64be"], 2, 1e-6, "AIFF-C 'fl64' 64-bit big-endian float"),
            ("caf s8", "caf", ["-c:a", "pcm_s8"], 2, 0.01, "CAF lpcm 8-bit signed integer"),
            ("caf s16le", "caf", ["-c:a", "pcm_s16le"], 2, 1e-4, "CAF lpcm 16-bit integer"),
            ("caf s16be", "caf", ["-c:a", "pcm_s16be"], 2, 1e-4, "CAF lpcm 16-bit big-endian integer"),
            ("caf s24", "caf", ["-c:a", "pcm_s24le"], 2, 1e-6, "CAF lpcm 24-bit integer"),
            ("caf s32be", "caf", ["-c:a", "pcm_s32be"], 2, 1e-6, "CAF lpcm 32-bit big-endian integer"),
            ("caf f32", "caf", ["-c:a", "pcm_f32le"], 2, 1e-6, "CAF lpcm 32-bit float"),
            ("caf f64be", "caf", ["-c:a", "pcm_f64be"], 2, 1e-6, "CAF lpcm 64-bit big-endian float"),
        ]
        for (name, type, options, channels, tolerance, describes) in cases {
            let file = directory.path("ffmpeg-\(name).\(type)")
            try Tool.run("ffmpeg", try ffmpegInput(channels) + options + ["-f", type, file])
            try check(Case(name: "ffmpeg \(name)", file: file, arguments: options, channels: channels, tolerance: tolerance, describes: describes))
        }
    }

    /// Streaming writers cannot seek back, so they leave placeholder sizes in the header.
    func testStreamingWriterPlaceholders() throws {
        _ = try Tool.require("sox")
        _ = try Tool.require("ffmpeg")
        let signal = try source(channels: 2).signal
        let outputs: [(String, String, [String])] = [
            ("sox WAV to pipe", "sox", try soxInput(2) + ["-e", "signed", "-b", "16", "-t", "wav", "-"]),
            ("sox AIFF to pipe", "sox", try soxInput(2) + ["-e", "signed", "-b", "16", "-t", "aiff", "-"]),
            ("ffmpeg WAV to pipe", "ffmpeg", try ffmpegInput(2) + ["-c:a", "pcm_s16le", "-f", "wav", "-"]),
            ("ffmpeg AIFF to pipe", "ffmpeg", try ffmpegInput(2) + ["-c:a", "pcm_s16be", "-f", "aiff", "-"]),
            ("ffmpeg CAF to pipe", "ffmpeg", try ffmpegInput(2) + ["-c:a", "pcm_s16le", "-f", "caf", "-"]),
        ]
        for (name, tool, arguments) in outputs {
            let file = directory.path(name.replacingOccurrences(of: " ", with: "-"))
            try Tool.run(tool, arguments, stdoutPath: file)
            let audio = try AudioInput.open(path: file)
            let decoded = try readAll(audio)
            XCTAssertEqual(decoded.count, TestSignal.frameCount, name)
            XCTAssertLessThanOrEqual(maxDifference(decoded, signal.mono), 1e-4, name)
            XCTAssertEqual(audio.warnings, [], name)

            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
            let streamed = try AudioInput.open(fileHandle: handle, name: name)
            assertSameSamples(try readAll(streamed, chunk: 1000), decoded, "\(name) read as a stream")
            XCTAssertEqual(streamed.warnings, [], name)
        }
    }

    /// sox knows the length of a file input and then writes true sizes even to a pipe, but not
    /// for generated audio: there it writes a data size just under 2 GiB.
    func testSoxPipePlaceholderWithUnknownLength() throws {
        let synth = ["-D", "-n", "-r", "8000", "-c", "2", "-e", "signed", "-b", "16"]
        let effects = ["synth", "0.5", "sine", "440", "sine", "1000", "vol", "0.5"]
        let fileOutput = directory.path("synth.wav")
        let pipeOutput = directory.path("synth-pipe.wav")
        try Tool.run("sox", synth + [fileOutput] + effects)
        try Tool.run("sox", synth + ["-t", "wav", "-"] + effects, stdoutPath: pipeOutput)
        let header = try Data(contentsOf: URL(fileURLWithPath: pipeOutput)).prefix(44)
        XCTAssertEqual(Array(header.suffix(4)), [0x00, 0xF0, 0xFF, 0x7F], "sox should leave its placeholder data size")

        let reference = try readAll(try AudioInput.open(path: fileOutput))
        XCTAssertEqual(reference.count, 4000)
        let piped = try AudioInput.open(path: pipeOutput)
        XCTAssertEqual(piped.frameCount, 4000)
        assertSameSamples(try readAll(piped), reference, "sox placeholder")
        XCTAssertEqual(piped.warnings, [])
    }

    func testFFmpegCompressedFormats() throws {
        _ = try Tool.require("ffmpeg")
        let signal = try source(channels: 2).signal
        let expectedRMS = rms(signal.mono)
        let cases: [(String, String, [String], Bool)] = [
            ("flac", "flac", ["-c:a", "flac", "-sample_fmt", "s16"], true),
            ("m4a", "mp4", ["-c:a", "aac", "-b:a", "128k"], false),
            ("mp3", "mp3", ["-c:a", "libmp3lame", "-b:a", "128k"], false),
            ("ogg", "ogg", ["-c:a", "libvorbis"], false),
            ("opus", "opus", ["-c:a", "libopus", "-ar", "48000"], false),
            ("wav adpcm", "wav", ["-c:a", "adpcm_ms"], false),
        ]
        for (name, type, options, lossless) in cases {
            let file = directory.path("ffmpeg.\(name.replacingOccurrences(of: " ", with: "."))")
            do {
                try Tool.run("ffmpeg", try ffmpegInput(2) + options + ["-f", type, file])
            } catch {
                print("skipping \(name): this ffmpeg cannot encode it (\(error.localizedDescription))")
                continue
            }
            let audio = try AudioInput.open(path: file)
            let decoded = try readAll(audio)
            XCTAssertNil(audio.frameCount, name)
            XCTAssertTrue(audio.formatDescription.contains("decoded by ffmpeg"), audio.formatDescription)
            XCTAssertTrue(audio.formatDescription.hasSuffix("2 channels, \(Int(audio.sampleRate)) Hz"), audio.formatDescription)
            XCTAssertEqual(audio.warnings, [], name)
            if lossless {
                XCTAssertEqual(audio.sampleRate, 44100)
                XCTAssertEqual(decoded.count, TestSignal.frameCount, name)
                XCTAssertLessThanOrEqual(maxDifference(decoded, signal.mono), 1e-4, name)
            } else {
                let duration = Double(decoded.count) / audio.sampleRate
                XCTAssertEqual(duration, 0.5, accuracy: 0.1, name)
                XCTAssertEqual(rms(decoded), expectedRMS, accuracy: expectedRMS * 0.15, name)
                let tone = tonePower(decoded, frequency: 440, sampleRate: audio.sampleRate)
                let offTone = tonePower(decoded, frequency: 700, sampleRate: audio.sampleRate)
                XCTAssertGreaterThan(tone, offTone * 100, name)
            }
        }
    }

    /// ffmpeg picks each decoder's vector code from the processor it runs on, and those routines
    /// round differently: a lossy file must decode to the samples of ffmpeg's plain C code, which
    /// runs alike on every x86-64 machine, not to what this processor's vector code makes of it.
    func testCompressedFilesDecodeAsOnEveryProcessor() throws {
        _ = try Tool.require("ffmpeg")
        let cases: [(String, String, [String])] = [
            ("m4a", "mp4", ["-c:a", "aac", "-b:a", "64k"]),
            ("mp3", "mp3", ["-c:a", "libmp3lame", "-b:a", "64k"]),
            ("opus", "opus", ["-c:a", "libopus", "-ar", "48000"]),
        ]
        for (name, type, options) in cases {
            let file = directory.path("plain.\(name)")
            try Tool.run("ffmpeg", try ffmpegInput(1) + options + ["-f", type, file])
            let raw = directory.path("plain-\(name).f32")
            try Tool.run("ffmpeg", FFmpegTools.sameOnEveryProcessor + [
                "-v", "error", "-nostdin", "-i", file, "-f", "f32le", "-acodec", "pcm_f32le", "-y", raw,
            ])
            let bytes = try Data(contentsOf: URL(fileURLWithPath: raw))
            let plain = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            XCTAssertGreaterThan(plain.count, TestSignal.frameCount / 2, name)
            assertSameSamples(try readAll(try AudioInput.open(path: file)), plain, name)
        }
    }

    /// Encodings inside a known container that are not PCM get a typed error natively and
    /// are handed to ffmpeg by `AudioInput`.
    func testUnsupportedEncodingNamesTheCodec() throws {
        _ = try Tool.require("ffmpeg")
        let file = directory.path("adpcm.wav")
        try Tool.run("ffmpeg", try ffmpegInput(2) + ["-c:a", "adpcm_ms", file])
        let stream = try ByteStream(path: file)
        assertAudioError(try AudioInput.openContainer(stream), "native ADPCM") { error in
            guard case .unsupportedEncoding(_, "WAV", let detail) = error else { return false }
            return detail.contains("0x0002") && detail.contains("ADPCM")
        }
    }

    /// Releasing an ffmpeg source before the end must stop ffmpeg rather than hang.
    func testAbandonedFFmpegSourceDoesNotHang() throws {
        let file = directory.path("long.flac")
        try Tool.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=120:r=44100", "-c:a", "flac", file])
        for _ in 0..<3 {
            var buffer: [Float] = []
            let source = try AudioInput.open(path: file)
            XCTAssertEqual(try source.read(into: &buffer, maxFrames: 1000), 1000)
        }
    }

    func testOddChunkSizesGiveIdenticalOutput() throws {
        _ = try Tool.require("sox")
        let files: [(String, [String])] = [
            ("chunks.wav", ["-e", "signed", "-b", "24"]),
            ("chunks.aiff", ["-e", "signed", "-b", "16"]),
            ("chunks.caf", ["-e", "floating-point", "-b", "32"]),
        ]
        for (name, options) in files {
            let file = directory.path(name)
            try Tool.run("sox", try soxInput(2) + options + [file])
            let reference = try readAll(try AudioInput.open(path: file), chunk: 4096)
            XCTAssertEqual(reference.count, TestSignal.frameCount)
            for chunk in [1, 7, 1000, 100_000] {
                assertSameSamples(try readAll(try AudioInput.open(path: file), chunk: chunk), reference, "\(name) in chunks of \(chunk)")
            }
        }
        if Tool.path("ffmpeg") != nil {
            let file = directory.path("chunks.flac")
            try Tool.run("ffmpeg", try ffmpegInput(2) + ["-c:a", "flac", file])
            let reference = try readAll(try AudioInput.open(path: file), chunk: 4096)
            for chunk in [1, 7] {
                assertSameSamples(try readAll(try AudioInput.open(path: file), chunk: chunk), reference, "flac in chunks of \(chunk)")
            }
        }
    }
}
