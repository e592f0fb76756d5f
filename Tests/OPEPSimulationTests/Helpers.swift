import Foundation
import OPEPKit
@testable import OPEPSimulation

/// A short session: one set of three breaths and one huff.
func shortConfiguration(
    sampleRate: Double = 8000, noiseKind: NoiseKind = .room, noiseLevelDB: Double = -25, seed: UInt64 = 7
) -> SimulationConfiguration {
    SimulationConfiguration(
        sampleRate: sampleRate, sets: 1, breathsPerSet: 3, noiseKind: noiseKind, noiseLevelDB: noiseLevelDB,
        huffCoughsPerSet: 1, leadInSilence: 1, seed: seed)
}

/// Renders a whole session in chunks of `chunk` frames.
func renderAll(_ configuration: SimulationConfiguration, chunk: Int = 4096) throws -> (audio: [Float], truth: GroundTruth) {
    var simulator = try SessionSimulator(configuration: configuration)
    var audio: [Float] = []
    audio.reserveCapacity(simulator.totalFrames)
    var buffer: [Float] = []
    while simulator.render(into: &buffer, maxFrames: chunk) > 0 {
        audio.append(contentsOf: buffer)
    }
    return (audio, simulator.groundTruth)
}

/// RMS of `audio` over the frames whose time lies in `interval`.
func rms(_ audio: [Float], sampleRate: Double, in interval: ClosedRange<Double>) -> Double {
    let frames = Int((interval.lowerBound * sampleRate).rounded(.up))..<min(audio.count, Int(interval.upperBound * sampleRate))
    let energy = frames.reduce(0.0) { $0 + Double(audio[$1]) * Double(audio[$1]) }
    return (energy / Double(max(frames.count, 1))).squareRoot()
}

/// Power of `signal` (sampled at `rate`) at `frequency`, by a direct DFT with a Hann window.
func power(of signal: [Double], rate: Double, at frequency: Double) -> Double {
    var re = 0.0
    var im = 0.0
    let n = Double(signal.count)
    for (k, x) in signal.enumerated() {
        let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(k) / n)
        let angle = 2 * Double.pi * frequency * Double(k) / rate
        re += window * x * cos(angle)
        im -= window * x * sin(angle)
    }
    return re * re + im * im
}

/// The energy envelope at 1 kHz, the way the engine sees it: `audio` high-passed by subtracting its
/// moving average over 4 ms (about 250 Hz), squared and averaged over 1 ms blocks.
func energyEnvelope(_ audio: [Float], sampleRate: Double, from start: Double, seconds: Double) -> [Double] {
    let block = Int(sampleRate / 1000)
    let length = Int(sampleRate / 250)
    let first = Int(start * sampleRate)
    var sums = [0.0]
    for n in (first - length)..<(first + Int(seconds * 1000) * block) {
        sums.append(sums.last! + Double(audio[n]))
    }
    let highPassed = (length..<(sums.count - 1)).map { i in
        Double(audio[first - length + i]) - (sums[i + 1] - sums[i + 1 - length]) / Double(length)
    }
    return stride(from: 0, to: highPassed.count - block + 1, by: block).map { start in
        highPassed[start..<(start + block)].reduce(0) { $0 + $1 * $1 } / Double(block)
    }
}
