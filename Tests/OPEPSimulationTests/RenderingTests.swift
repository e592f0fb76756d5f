import Foundation
import OPEPKit
import Testing
@testable import OPEPSimulation

@Suite struct RenderingTests {
    @Test func sameSeedGivesIdenticalAudioAndOtherSeedsDiffer() throws {
        let first = try renderAll(shortConfiguration())
        let again = try renderAll(shortConfiguration())
        let other = try renderAll(shortConfiguration(seed: 8))
        #expect(first.audio == again.audio)
        #expect(first.truth.breaths == again.truth.breaths)
        #expect(first.audio != other.audio)
        #expect(first.truth.breaths != other.truth.breaths)
    }

    @Test func chunkSizesDoNotChangeTheAudio() throws {
        let configuration = shortConfiguration(noiseKind: .mixed, noiseLevelDB: -15)
        let reference = try renderAll(configuration, chunk: 10000).audio
        #expect(try renderAll(configuration, chunk: 333).audio == reference)
        #expect(try renderAll(configuration, chunk: 1).audio == reference)
    }

    @Test func rendersExactlyTheSessionsFrames() throws {
        var simulator = try SessionSimulator(configuration: shortConfiguration())
        let expected = Int((simulator.groundTruth.duration * 8000).rounded(.up))
        #expect(simulator.totalFrames == expected)
        var buffer: [Float] = [1, 2, 3]
        #expect(simulator.render(into: &buffer, maxFrames: 0) == 0)
        #expect(buffer.isEmpty)
        var rendered = 0
        while true {
            let count = simulator.render(into: &buffer, maxFrames: 50_000)
            #expect(buffer.count == count)
            if count == 0 { break }
            rendered += count
        }
        #expect(rendered == expected)
        #expect(simulator.position == expected)
    }

    @Test(arguments: [8000.0, 16000, 22050, 44100, 48000, 96000])
    func envelopeIsModulatedAtTheTruePitch(sampleRate: Double) throws {
        var configuration = shortConfiguration(sampleRate: sampleRate, noiseKind: .quiet, seed: 3)
        if sampleRate > 16000 {
            configuration.breathsPerSet = 1
            configuration.huffCoughsPerSet = 0
        }
        let (audio, truth) = try renderAll(configuration)
        #expect(audio.allSatisfy { $0.isFinite && abs($0) <= 1 })
        for breath in truth.breaths {
            let window = flattestSecond(of: breath, truth: truth)
            let envelope = energyEnvelope(audio, sampleRate: sampleRate, from: window.lowerBound, seconds: 1)
            let mean = envelope.reduce(0, +) / Double(envelope.count)
            let centred = envelope.map { $0 - mean }
            let candidates = stride(from: 8.0, through: 45.0, by: 0.02)
            let peak = candidates.max { power(of: centred, rate: 1000, at: $0) < power(of: centred, rate: 1000, at: $1) }!
            let truePitch = stride(from: window.lowerBound, to: window.upperBound, by: 0.001)
                .map { truth.pitch(at: $0)! }.reduce(0, +) / 1000
            #expect(abs(peak - truePitch) < 0.5, "breath \(breath.index) at \(sampleRate) Hz: envelope peak \(peak) Hz, truth \(truePitch) Hz")
        }
    }

    /// The one-second window of the breath's sustained flutter over which the true pitch varies least.
    private func flattestSecond(of breath: TrueBreath, truth: GroundTruth) -> ClosedRange<Double> {
        let earliest = breath.flutterStart + 0.4
        let latest = breath.flutterEnd - 0.3 - 1
        return stride(from: earliest, through: latest, by: 0.05).map { $0...($0 + 1) }.min { a, b in
            spread(truth, a) < spread(truth, b)
        }!
    }

    private func spread(_ truth: GroundTruth, _ window: ClosedRange<Double>) -> Double {
        let pitches = stride(from: window.lowerBound, through: window.upperBound, by: 0.02).map { truth.pitch(at: $0)! }
        return pitches.max()! - pitches.min()!
    }

    @Test func exhalationsStandFarAboveTheRestsInQuiet() throws {
        let configuration = shortConfiguration(noiseKind: .quiet)
        let (audio, truth) = try renderAll(configuration)
        let rest = rms(audio, sampleRate: 8000, in: 0...configuration.leadInSilence)
        for breath in truth.breaths {
            let exhalation = rms(audio, sampleRate: 8000, in: breath.flutterStart...breath.flutterEnd)
            #expect(exhalation > 0.05 && exhalation < 0.2)
            #expect(20 * log10(exhalation / rest) > 35)
            let hold = rms(audio, sampleRate: 8000, in: (breath.start - 1.5)...(breath.start - 0.2))
            #expect(20 * log10(exhalation / hold) > 35)
        }
    }

    @Test func microphoneRemovesTheFlutterFundamental() throws {
        let (audio, truth) = try renderAll(shortConfiguration(noiseKind: .quiet))
        for breath in truth.breaths {
            let first = Int((breath.flutterStart + 0.5) * 8000)
            let second = audio[first..<(first + 8000)].map(Double.init)
            let total = second.reduce(0) { $0 + $1 * $1 } * 0.375 * 8000 / 2
            let low = stride(from: 1.0, through: 60, by: 1).reduce(0) { $0 + power(of: second, rate: 8000, at: $1) }
            #expect(10 * log10(low / total) < -40)
        }
    }

    @Test(arguments: NoiseKind.allCases)
    func everyInterferenceRendersCleanlyAtItsLevel(kind: NoiseKind) throws {
        let level = -10.0
        let quiet = try renderAll(shortConfiguration(noiseKind: .quiet)).audio
        let (audio, truth) = try renderAll(shortConfiguration(noiseKind: kind, noiseLevelDB: level))
        #expect(audio.allSatisfy { $0.isFinite && abs($0) <= 1 })
        let interference = zip(audio, quiet).map { $0 - $1 }
        let whole = rms(interference, sampleRate: 8000, in: 0...truth.duration)
        let exhaling = truth.breaths.map { rms(interference, sampleRate: 8000, in: $0.start...$0.end) }
        let resting = rms(interference, sampleRate: 8000, in: 0...truth.breaths[0].start)
        switch kind {
        case .quiet:
            #expect(whole == 0)
        case .cough:
            #expect(whole > 0)
        default:
            let expected = MicrophoneResponse.gain * amplitude(decibels: level)
            #expect(abs(20 * log10(whole / expected)) < 4, "\(kind): \(whole) instead of \(expected)")
            #expect(resting > 0.1 * expected)
            #expect(exhaling.allSatisfy { $0 > 0.1 * expected })
        }
    }
}
