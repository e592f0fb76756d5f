import Foundation
import XCTest
@testable import OPEPKit

/// The stages that turn audio into the detrended energy envelope, each against a plain reference
/// written straight from its definition in `Double`, and each fed in odd splits.
final class EnvelopeStageTests: XCTestCase {
    /// Group means, centred moving-average high-pass, squares and block means, in `Double`, with
    /// silence before the first sample; with `waveform`, the high-passed samples' triangular mean
    /// over each part of a block and the part before; with `whiteningTime`, of the error of the second-order
    /// linear predictor whose coefficients solve the normal equations of the exponentially
    /// averaged autocorrelation of the blocks before.
    private func referenceEnergies(
        _ x: [Float], sampleRate: Double, front: AudioEnergyFrontEnd, whiteningTime: Double = 0, waveform: Bool = false
    ) -> [Double] {
        let r = front.groupLength, length = front.averageLength, delay = length / 2
        let groups = (0..<(x.count / r)).map { j in (0..<r).reduce(0.0) { $0 + Double(x[j * r + $1]) } / Double(r) }
        let value = { (n: Int) in n >= 0 ? groups[n] : 0 }
        let highPassed = { (n: Int) -> Double in
            let mean = ((n - length + 1)...n).reduce(0.0) { $0 + value($1) } / Double(length)
            return value(n - delay) - mean
        }
        let y = groups.indices.map(highPassed)
        let at = { (n: Int) in n >= 0 ? y[n] : 0 }
        let block = front.analysisBlockLength
        if waveform {
            let part = block / front.waveformParts
            return (0..<(y.count / block * front.waveformParts)).map { k in
                (0..<part).reduce(0.0) { $0 + Double($1 + 1) * at((k - 1) * part + $1) + Double(part - $1) * at(k * part + $1) }
                    / Double(part * part)
            }
        }
        guard whiteningTime > 0 else {
            return (0..<(y.count / block)).map { k in y[(k * block)..<(k * block + block)].reduce(0) { $0 + $1 * $1 } / Double(block) }
        }
        let predictor = WhiteningPredictor(
            blockDuration: Double(block * front.groupLength) / sampleRate, memoryTime: whiteningTime)
        var averaged = (0.0, 0.0, 0.0), c = (0.0, 0.0)
        return (0..<(y.count / block)).map { k in
            let range = (k * block)..<(k * block + block)
            let error = range.reduce(0.0) { total, n in
                let w = at(n) - c.0 * at(n - 1) - c.1 * at(n - 2)
                return total + w * w
            }
            averaged.0 = averaged.0 * predictor.decay + range.reduce(0) { $0 + at($1) * at($1) }
            averaged.1 = averaged.1 * predictor.decay + range.reduce(0) { $0 + at($1) * at($1 - 1) }
            averaged.2 = averaged.2 * predictor.decay + range.reduce(0) { $0 + at($1) * at($1 - 2) }
            if (k + 1) % predictor.refreshBlocks == 0 {
                let r0 = averaged.0 * (1 + WhiteningPredictor.whiteFloor), determinant = r0 * r0 - averaged.1 * averaged.1
                c = determinant > 0 ? ((averaged.1 * r0 - averaged.1 * averaged.2) / determinant, (r0 * averaged.2 - averaged.1 * averaged.1) / determinant) : (0, 0)
            }
            return error / Double(block)
        }
    }

    /// The front end's plain and whitened energies and its waveform for `x` fed in chunks of `chunk`.
    private func energies(
        _ x: [Float], sampleRate: Double, chunk: Int, whiteningTime: Double = 0.1, rates: Rates = .study
    ) -> (plain: [Float], whitened: [Float], waveform: [Float]) {
        var front = rates.frontEnd(sampleRate: sampleRate, whiteningTime: whiteningTime)
        var plain: [Float] = [], whitened: [Float] = [], waveform: [Float] = []
        var plainBuffer = [Float](repeating: 0, count: front.capacity(for: chunk))
        var whitenedBuffer = plainBuffer, waveformBuffer = [Float](repeating: 0, count: front.capacity(for: chunk) * front.waveformParts)
        var start = 0
        while start < x.count {
            let end = min(x.count, start + chunk)
            let written = x[start..<end].withUnsafeBufferPointer { slice in
                plainBuffer.withUnsafeMutableBufferPointer { plain in
                    whitenedBuffer.withUnsafeMutableBufferPointer { whitened in
                        waveformBuffer.withUnsafeMutableBufferPointer {
                            front.process(slice, into: plain.baseAddress!, whitened: whitened.baseAddress!, waveform: $0.baseAddress!)
                        }
                    }
                }
            }
            plain += plainBuffer[0..<written]
            whitened += whitenedBuffer[0..<written]
            waveform += waveformBuffer[0..<(written * front.waveformParts)]
            start = end
        }
        return (plain, whitened, waveform)
    }

    /// The front end's energy rate and the rate its waveform is wanted at.
    struct Rates: CustomStringConvertible {
        var energy: Double
        var waveform: Double?
        /// The study's 980 Hz, the waveform at the same rate.
        static let study = Rates(energy: 980, waveform: nil)
        /// Half the study's energy rate, the waveform at twice it.
        static let halved = Rates(energy: 490, waveform: 980)

        func frontEnd(sampleRate: Double, whiteningTime: Double) -> AudioEnergyFrontEnd {
            AudioEnergyFrontEnd(
                sampleRate: sampleRate, highPassCutoff: 250, energyRate: energy, analysisRate: 14000, whiteningTime: whiteningTime,
                waveformRate: waveform)
        }

        var description: String { "energy at \(energy) Hz, waveform at \(waveform ?? energy) Hz" }
    }

    func testFrontEndMatchesReferenceAtEveryGroupLength() {
        for sampleRate in [16000.0, 32000, 44100, 96000] {
            let x = TestSignals.flutter(sampleRate: sampleRate, duration: 0.5, pitch: { _ in 23 }, noiseDB: -20)
                .enumerated().map { $1 + Float(0.05 * sin(Double($0) * 0.001)) }
            for memory in [0.0, 0.02, 0.1] {
                for rates in [Rates.study, .halved] {
                    let front = rates.frontEnd(sampleRate: sampleRate, whiteningTime: memory)
                    let found = energies(x, sampleRate: sampleRate, chunk: x.count, whiteningTime: memory, rates: rates)
                    for (name, values, reference) in [
                        ("plain", found.plain, referenceEnergies(x, sampleRate: sampleRate, front: front)),
                        ("whitened", found.whitened, referenceEnergies(x, sampleRate: sampleRate, front: front, whiteningTime: memory)),
                        ("waveform", found.waveform, referenceEnergies(x, sampleRate: sampleRate, front: front, waveform: true)),
                    ] {
                        let context = "\(sampleRate) Hz, group of \(front.groupLength), \(name), predictor memory \(memory) s, \(rates)"
                        XCTAssertEqual(values.count, reference.count, context)
                        let scale = reference.map(abs).max() ?? 1
                        let worst = zip(values, reference).map { abs(Double($0) - $1) }.max() ?? .infinity
                        XCTAssertLessThan(worst, 1e-5 * scale, context)
                    }
                }
            }
        }
    }

    func testFrontEndKeepsTheWaveformAtTheRateAskedFor() {
        for sampleRate in [8000.0, 16000, 44100, 48000] {
            let front = Rates.halved.frontEnd(sampleRate: sampleRate, whiteningTime: 0.1)
            let energyRate = sampleRate / Double(front.blockLength)
            XCTAssertEqual(front.waveformParts, 2, "\(sampleRate) Hz")
            XCTAssertEqual(front.analysisBlockLength % front.waveformParts, 0, "\(sampleRate) Hz")
            XCTAssertEqual(energyRate, 490, accuracy: 490 * 0.05, "\(sampleRate) Hz")
        }
    }

    func testFrontEndGivesTheSameBitsWhateverTheSplit() {
        for sampleRate in [22050.0, 44100, 96000] {
            let x = TestSignals.flutter(sampleRate: sampleRate, duration: 0.4, pitch: { _ in 31 }, noiseDB: -10)
            for rates in [Rates.study, .halved] {
                let whole = energies(x, sampleRate: sampleRate, chunk: x.count, rates: rates)
                for chunk in [1, 2, 5, 7, 4095, 4097] {
                    let split = energies(x, sampleRate: sampleRate, chunk: chunk, rates: rates)
                    XCTAssertEqual(split.plain, whole.plain, "\(sampleRate) Hz, chunks of \(chunk), \(rates)")
                    XCTAssertEqual(split.whitened, whole.whitened, "\(sampleRate) Hz, chunks of \(chunk), \(rates)")
                    XCTAssertEqual(split.waveform, whole.waveform, "\(sampleRate) Hz, chunks of \(chunk), \(rates)")
                }
            }
        }
    }

    func testFrontEndTreatsGroupsWithNonFiniteSamplesAsSilence() {
        for sampleRate in [22050.0, 44100] {
            let r = AudioEnergyFrontEnd(
                sampleRate: sampleRate, highPassCutoff: 250, energyRate: 980, analysisRate: 14000, whiteningTime: 0.1).groupLength
            var x = TestSignals.noise(sampleRate: sampleRate, duration: 0.2, rms: 0.1)
            var silenced = x
            for i in stride(from: 100, to: x.count, by: 997) {
                x[i] = [Float.nan, .infinity, -.infinity][i % 3]
                for k in (i / r * r)..<(i / r * r + r) { silenced[k] = 0 }
            }
            let found = energies(x, sampleRate: sampleRate, chunk: 333), expected = energies(silenced, sampleRate: sampleRate, chunk: 333)
            XCTAssertEqual(found.plain, expected.plain, "\(sampleRate) Hz")
            XCTAssertEqual(found.whitened, expected.whitened, "\(sampleRate) Hz")
            XCTAssertEqual(found.waveform, expected.waveform, "\(sampleRate) Hz")
        }
    }

    func testSmootherAndDetrenderMatchTheirDefinitionsInAnyBlocks() {
        var rng = SeededGenerator(seed: 5)
        let x = (0..<3000).map { _ in Float(rng.gaussian()) + 2 }
        let sigma = 4.9, half = 49
        let width = Int((3 * sigma).rounded(.up))
        let weights = (-width...width).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = weights.reduce(0, +)
        let value = { (n: Int) in n >= 0 ? Double(x[n]) : 0 }
        let smoothed = x.indices.map { n in weights.indices.reduce(0.0) { $0 + weights[$1] / total * value(n - 2 * width + $1) } }
        let smoothedValue = { (n: Int) in n >= 0 ? smoothed[n] : 0 }
        let detrended = x.indices.map { n in
            smoothedValue(n - half) - ((n - 2 * half)...n).reduce(0.0) { $0 + smoothedValue($1) } / Double(2 * half + 1)
        }
        for block in [1, 3, 64, 500] {
            var smoother = GaussianSmoother(sigma: sigma, maximumBlock: block)
            var detrender = MovingAverageHighPass(halfLength: half, maximumBlock: block)
            XCTAssertEqual(smoother.halfWidth, width)
            var out: [Float] = []
            var buffer = [Float](repeating: 0, count: block), means = buffer
            for start in stride(from: 0, to: x.count, by: block) {
                let count = min(block, x.count - start)
                for i in 0..<count { buffer[i] = x[start + i] }
                buffer.withUnsafeMutableBufferPointer { b in
                    means.withUnsafeMutableBufferPointer { m in
                        smoother.process(b.baseAddress!, count: count)
                        detrender.process(b.baseAddress!, means: m.baseAddress!, count: count)
                    }
                }
                out += buffer[0..<count]
            }
            let worst = zip(out, detrended).map { abs(Double($0) - $1) }.max() ?? .infinity
            XCTAssertLessThan(worst, 1e-5, "blocks of \(block)")
        }
    }
}
