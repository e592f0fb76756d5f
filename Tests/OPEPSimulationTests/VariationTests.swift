import XCTest
@testable import OPEPSimulation

final class VariationTests: XCTestCase {
    private let names = ["music-a.flac", "speech-b.flac", "coughs/cough-01.flac", "coughs/cough-02.flac"]

    /// A short varied session at 8 kHz: two breaths and a huff.
    private func shortVaried(seed: UInt64, recordings: [String] = []) -> SimulationConfiguration {
        var configuration = SimulationConfiguration.random(seed: seed, recordings: recordings)
        configuration.sampleRate = 8000
        configuration.breathsPerSet = 2
        configuration.huffCoughsPerSet = 1
        return configuration
    }

    /// A tone and a noise burst standing in for the real recordings.
    private func library() -> RecordingLibrary {
        var generator = SeededGenerator(seed: 5)
        return RecordingLibrary([
            RecordedClip(name: "music-a.flac", sampleRate: 16000, samples: (0..<32000).map { Float(0.3 * sin(Double($0) * 0.2)) }),
            RecordedClip(name: "speech-b.flac", sampleRate: 22050, samples: (0..<30000).map { _ in Float(generator.uniform(-0.2...0.2)) }),
            RecordedClip(name: "coughs/cough-01.flac", sampleRate: 8000, samples: (0..<4000).map { _ in Float(generator.uniform(-0.5...0.5)) }),
            RecordedClip(name: "coughs/cough-02.flac", sampleRate: 48000, samples: (0..<9000).map { _ in Float(generator.uniform(-0.5...0.5)) }),
        ])
    }

    func testTheDrawIsDeterministicPerSeed() {
        XCTAssertEqual(SimulationConfiguration.random(seed: 5, recordings: names), .random(seed: 5, recordings: names))
        XCTAssertNotEqual(SimulationConfiguration.random(seed: 5, recordings: names), .random(seed: 6, recordings: names))
        XCTAssertEqual(SessionVariation.random(seed: 9), SessionVariation.random(seed: 9))
    }

    func testDrawsStayInsideTheirRanges() throws {
        var codecs = Set<String>()
        var recordings = 0
        for seed in UInt64(0)..<600 {
            let c = SimulationConfiguration.random(seed: seed, recordings: names)
            XCTAssertNoThrow(try c.validate(), "seed \(seed)")
            let v = try XCTUnwrap(c.variation)
            XCTAssertTrue(SimulationConfiguration.randomSampleRates.contains(c.sampleRate))
            XCTAssertEqual(c.sets, 1)
            XCTAssertTrue((6...10).contains(c.breathsPerSet))
            XCTAssertTrue((0...3).contains(c.huffCoughsPerSet))
            XCTAssertTrue((0.4...1).contains(c.modulationDepth))
            XCTAssertEqual(c.pressureRange, 8...30)
            for slew in [v.sound.onsetSlew, v.sound.offsetSlew] {
                XCTAssertTrue(slew == 0 || (0.3...0.4).contains(abs(slew)), "slew \(slew)")
            }
            XCTAssertTrue((1.5...4.5).contains(v.sound.exhalationDurations.lowerBound))
            XCTAssertTrue((-30...(-6)).contains(v.chain.levelDB))
            if let recording = v.recording {
                recordings += 1
                XCTAssertTrue(recording.files.allSatisfy(names.contains))
                XCTAssertEqual(recording.bursts, recording.files[0].hasPrefix("coughs/"))
            }
            codecs.insert(v.chain.codec.map { "\($0)".prefix(3).description } ?? "none")
        }
        XCTAssertEqual(codecs, ["aac", "opu", "tel", "none"])
        XCTAssertTrue((200...500).contains(recordings), "\(recordings) of 600 sessions with a real recording")
    }

    func testInvalidVariationsNameTheParameter() {
        var variation = SessionVariation.random(seed: 1)
        variation.sound.periodJitter = 0.2
        XCTAssertThrowsError(try variation.validate()) { error in
            XCTAssertEqual((error as? SimulationError)?.parameter, "sound.periodJitter")
        }
        var configuration = shortVaried(seed: 3, recordings: ["coughs/cough-09.flac"])
        configuration.variation?.recording = RecordedInterference(files: ["nowhere.flac"], bursts: false, levelDB: -10)
        XCTAssertThrowsError(try SessionSimulator(configuration: configuration)) { error in
            XCTAssertEqual(error as? SimulationError, .missingRecording("nowhere.flac"))
        }
    }

    func testChunkSizesDoNotChangeAVariedSession() throws {
        let library = library()
        for seed: UInt64 in [2, 3] {
            var configuration = shortVaried(seed: seed, recordings: names)
            configuration.variation?.recording = seed == 2
                ? RecordedInterference(files: ["music-a.flac"], bursts: false, levelDB: -10, start: 0.7)
                : RecordedInterference(files: ["coughs/cough-01.flac", "coughs/cough-02.flac"], bursts: true, levelDB: -5)
            let reference = try render(configuration, library: library, chunk: 10000)
            XCTAssertTrue(reference.allSatisfy { $0.isFinite && abs($0) <= 1 })
            XCTAssertEqual(try render(configuration, library: library, chunk: 333), reference)
            XCTAssertEqual(try render(configuration, library: library, chunk: 1), reference)
        }
    }

    private func render(_ configuration: SimulationConfiguration, library: RecordingLibrary, chunk: Int) throws -> [Float] {
        var simulator = try SessionSimulator(configuration: configuration, recordings: library)
        var audio: [Float] = []
        var buffer: [Float] = []
        while simulator.render(into: &buffer, maxFrames: chunk) > 0 {
            audio.append(contentsOf: buffer)
        }
        XCTAssertEqual(audio.count, simulator.totalFrames)
        return audio
    }

    func testGroundTruthFollowsTheSlewsAndTheWander() throws {
        var configuration = shortVaried(seed: 4)
        configuration.pressureRange = 15...15
        configuration.variation?.sound.onsetSlew = 0.35
        configuration.variation?.sound.offsetSlew = -0.3
        configuration.variation?.sound.slewTime = 0.4
        configuration.variation?.sound.wanderDepth = 0.05
        configuration.variation?.sound.wanderFrequency = 0.3
        let truth = try SessionSimulator(configuration: configuration).groundTruth
        let device = configuration.device
        for breath in truth.breaths {
            let contour = try XCTUnwrap(breath.contour)
            func line(_ t: Double) -> Double { device.pitch(forPressure: breath.trajectory.pressure(at: t - breath.start)) }
            func wander(_ t: Double) -> Double { 0.05 * sin(2 * Double.pi * 0.3 * (t - breath.start) + contour.wanderPhase) }
            let early = breath.flutterStart + 0.05
            let expectedEarly = line(early) * (1 + 0.35 * (1 - smoothstep(0.05 / 0.4)) + wander(early))
            XCTAssertEqual(try XCTUnwrap(truth.pitch(at: early)), min(max(expectedEarly, 10), 40), accuracy: 1e-9)
            let middle = (breath.flutterStart + breath.flutterEnd) / 2
            XCTAssertEqual(try XCTUnwrap(truth.pitch(at: middle)), line(middle) * (1 + wander(middle)), accuracy: 1e-9)
            let late = breath.flutterEnd - 0.1
            let expectedLate = line(late) * (1 - 0.3 * (1 - smoothstep(0.1 / 0.4)) + wander(late))
            XCTAssertEqual(try XCTUnwrap(truth.pitch(at: late)), min(max(expectedLate, 10), 40), accuracy: 1e-9)
            XCTAssertGreaterThan(try XCTUnwrap(truth.pitch(at: early)), line(early) * 1.2)
        }
    }

    func testTheResamplerReproducesATone() {
        for (input, output) in [(16000.0, 44100.0), (48000, 8000), (22050, 16000)] {
            let tone = (0..<Int(input / 2)).map { Float(0.5 * sin(2 * Double.pi * 1000 * Double($0) / input)) }
            let resampled = SincResampler(inputRate: input, outputRate: output).resample(tone)
            XCTAssertEqual(resampled.count, Int(output / 2))
            let interior = Int(0.05 * output)..<(resampled.count - Int(0.05 * output))
            let worst = interior.map { abs(Double(resampled[$0]) - 0.5 * sin(2 * Double.pi * 1000 * Double($0) / output)) }.max()!
            XCTAssertLessThan(worst, 2e-3, "\(input) -> \(output) Hz")
        }
        let alias = (0..<24000).map { Float(sin(2 * Double.pi * 7000 * Double($0) / 48000)) }
        let down = SincResampler(inputRate: 48000, outputRate: 8000).resample(alias)
        let energy = down[400..<3600].reduce(0) { $0 + Double($1) * Double($1) } / 3200
        XCTAssertLessThan(energy, 1e-4, "a 7 kHz tone must not alias into an 8 kHz recording")
    }

    func testHeldOutRecordingsAreSplitByFile() {
        XCTAssertEqual(RecordingLibrary.split(of: "speech-librispeech-5703-47212.flac"), .heldOut)
        XCTAssertEqual(RecordingLibrary.split(of: "speech-librispeech-198-209.flac"), .tuning)
        XCTAssertEqual(RecordingLibrary.split(of: "coughs/cough-07.flac"), .heldOut)
        XCTAssertEqual(RecordingLibrary.split(of: "coughs/cough-08.flac"), .tuning)
        XCTAssertEqual(library().names(in: .heldOut), ["coughs/cough-01.flac"])
    }
}
