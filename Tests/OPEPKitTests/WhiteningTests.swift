import XCTest
@testable import OPEPKit

/// The two views of the sound: the whitened envelope against a breath's narrow, beating noise, and
/// the plain one for a device whose sound lies below a few hundred hertz; and the predictor that
/// whitens.
final class WhiteningTests: XCTestCase {
    private let sampleRate = 44100.0
    private let pitch = 18.0

    /// Share of frames with a pitch after the first 0.4 s, and their median error in Hz.
    private func track(_ signal: [Float], whiteningTime: Double) throws -> (coverage: Double, medianError: Double) {
        var configuration = FlutterPitchTracker.Configuration(sampleRate: sampleRate)
        configuration.whiteningTime = whiteningTime
        var tracker = try FlutterPitchTracker(configuration: configuration)
        var frames: [FlutterPitchTracker.Frame] = []
        tracker.process(signal) { frames.append($0) }
        let settled = frames.filter { $0.time > 0.4 && $0.time < Double(signal.count) / sampleRate - 0.2 }
        let errors = settled.compactMap { $0.pitch.map { abs($0 - pitch) } }.sorted()
        return (Double(errors.count) / Double(settled.count), errors.isEmpty ? .infinity : errors[errors.count / 2])
    }

    /// A breath's own noise, `rms`: white noise through a resonance at 150 Hz only 40 Hz wide, so
    /// that its loudness beats by itself at 10-40 Hz.
    private func narrowBreath(duration: Double, rms: Double, seed: UInt64) -> [Float] {
        var rng = SeededGenerator(seed: seed)
        let white = (0..<Int(duration * sampleRate)).map { _ in rng.gaussian() }
        let narrow = TestSignals.resonate(white, sampleRate: sampleRate, frequency: 150, bandwidth: 40)
        let scale = rms / (narrow.reduce(0) { $0 + $1 * $1 } / Double(narrow.count)).squareRoot()
        return narrow.map { Float($0 * scale) }
    }

    func testTheWhitenedViewHearsTheRockerThroughABreathsBeatingNoise() throws {
        let flutter = TestSignals.flutter(sampleRate: sampleRate, duration: 4, pitch: { _ in self.pitch }, seed: 21, amplitude: 0.05)
        let breath = narrowBreath(duration: 4, rms: 0.2, seed: 22)
        let signal = zip(flutter, breath).map { $0 + $1 }

        let whitened = try track(signal, whiteningTime: 0.1)
        let plain = try track(signal, whiteningTime: 0)

        XCTAssertGreaterThan(whitened.coverage, 0.9, "whitened")
        XCTAssertLessThan(whitened.medianError, 0.3, "whitened")
        XCTAssertLessThan(plain.coverage, whitened.coverage - 0.2, "the plain envelope beats with the breath's noise")
    }

    func testADarkFlutterUnderBrighterNoiseIsHeardInThePlainView() throws {
        let broadband = TestSignals.flutter(sampleRate: sampleRate, duration: 4, pitch: { _ in self.pitch }, seed: 31)
        let dark = TestSignals.resonate(broadband.map(Double.init), sampleRate: sampleRate, frequency: 200, bandwidth: 150)
        var rng = SeededGenerator(seed: 32)
        let darkRMS = (dark.reduce(0) { $0 + $1 * $1 } / Double(dark.count)).squareRoot()
        let signal = dark.map { Float(0.1 * $0 / darkRMS + 0.03 * rng.gaussian()) }

        let found = try track(signal, whiteningTime: 0.1)

        XCTAssertGreaterThan(found.coverage, 0.9)
        XCTAssertLessThan(found.medianError, 0.3)
    }

    /// Sums of products of `y` over its samples `first..<first + count` (before it, zeros).
    private func blockSums(_ y: [Double], first: Int, count: Int) -> WhiteningPredictor.BlockSums {
        let at = { (n: Int) in n >= 0 ? y[n] : 0 }
        let range = first..<(first + count), last = first + count - 1
        return .init(
            energy: Float(range.reduce(0) { $0 + at($1) * at($1) }),
            lag1: Float(range.reduce(0) { $0 + at($1) * at($1 - 1) }),
            lag2: Float(range.reduce(0) { $0 + at($1) * at($1 - 2) }),
            before: (Float(at(first - 1) * at(first - 1)), Float(at(first - 2) * at(first - 2)), Float(at(first - 1) * at(first - 2))),
            last: (Float(at(last) * at(last)), Float(at(last - 1) * at(last - 1)), Float(at(last) * at(last - 1))))
    }

    func testThePredictorLearnsASecondOrderResonanceAndItsErrorIsTheFiltersOutput() {
        let (a1, a2) = (1.6, -0.8)
        var rng = SeededGenerator(seed: 41)
        var y = [Double](repeating: 0, count: 16000)
        for n in 2..<y.count { y[n] = a1 * y[n - 1] + a2 * y[n - 2] + 0.01 * rng.gaussian() }
        let block = 16
        var predictor = WhiteningPredictor(blockDuration: Double(block) / 16000, memoryTime: 0.1)
        var worst = 0.0
        for first in stride(from: 0, to: y.count - block + 1, by: block) {
            let sums = blockSums(y, first: first, count: block)
            let (c1, c2) = (Double(predictor.coefficients.0), Double(predictor.coefficients.1))
            let direct = (first..<(first + block)).reduce(0.0) { total, n in
                let w = y[n] - c1 * (n >= 1 ? y[n - 1] : 0) - c2 * (n >= 2 ? y[n - 2] : 0)
                return total + w * w
            }
            worst = max(worst, abs(Double(predictor.errorEnergy(sums)) - direct) / Double(sums.energy))
            predictor.update(sums)
        }
        XCTAssertLessThan(worst, 1e-4, "the error energy from the sums against filtering sample by sample")
        XCTAssertEqual(Double(predictor.coefficients.0), a1, accuracy: 0.05)
        XCTAssertEqual(Double(predictor.coefficients.1), a2, accuracy: 0.05)
    }

    func testThePredictorLeavesSilenceAndWhiteNoiseAlone() {
        var predictor = WhiteningPredictor(blockDuration: 0.001, memoryTime: 0.1)
        for _ in 0..<100 { predictor.update(blockSums([Double](repeating: 0, count: 16), first: 0, count: 16)) }
        XCTAssertEqual(predictor.coefficients.0, 0)
        XCTAssertEqual(predictor.coefficients.1, 0)
        var rng = SeededGenerator(seed: 42)
        let white = (0..<16000).map { _ in rng.gaussian() }
        for first in stride(from: 0, to: white.count, by: 16) { predictor.update(blockSums(white, first: first, count: 16)) }
        XCTAssertEqual(Double(predictor.coefficients.0), 0, accuracy: 0.1)
        XCTAssertEqual(Double(predictor.coefficients.1), 0, accuracy: 0.1)
    }
}
