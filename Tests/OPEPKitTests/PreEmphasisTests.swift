import XCTest
@testable import OPEPKit

/// The two views of the sound: the pre-emphasised envelope against a breath's narrow, beating
/// noise, and the plain one for a device whose sound lies below a few hundred hertz.
final class PreEmphasisTests: XCTestCase {
    private let sampleRate = 44100.0
    private let pitch = 18.0

    /// Share of frames with a pitch after the first 0.4 s, and their median error in Hz.
    private func track(_ signal: [Float], preEmphasis: Double) throws -> (coverage: Double, medianError: Double) {
        var configuration = FlutterPitchTracker.Configuration(sampleRate: sampleRate)
        configuration.preEmphasis = preEmphasis
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

    func testThePreEmphasisedViewHearsTheRockerThroughABreathsBeatingNoise() throws {
        let flutter = TestSignals.flutter(sampleRate: sampleRate, duration: 4, pitch: { _ in self.pitch }, seed: 21, amplitude: 0.05)
        let breath = narrowBreath(duration: 4, rms: 0.2, seed: 22)
        let signal = zip(flutter, breath).map { $0 + $1 }

        let emphasised = try track(signal, preEmphasis: 1)
        let plain = try track(signal, preEmphasis: 0)

        XCTAssertGreaterThan(emphasised.coverage, 0.9, "with pre-emphasis")
        XCTAssertLessThan(emphasised.medianError, 0.3, "with pre-emphasis")
        XCTAssertLessThan(plain.coverage, emphasised.coverage - 0.2, "the plain envelope beats with the breath's noise")
    }

    func testADarkFlutterUnderBrighterNoiseIsHeardInThePlainView() throws {
        let broadband = TestSignals.flutter(sampleRate: sampleRate, duration: 4, pitch: { _ in self.pitch }, seed: 31)
        let dark = TestSignals.resonate(broadband.map(Double.init), sampleRate: sampleRate, frequency: 200, bandwidth: 150)
        var rng = SeededGenerator(seed: 32)
        let darkRMS = (dark.reduce(0) { $0 + $1 * $1 } / Double(dark.count)).squareRoot()
        let signal = dark.map { Float(0.1 * $0 / darkRMS + 0.03 * rng.gaussian()) }

        let found = try track(signal, preEmphasis: 1)

        XCTAssertGreaterThan(found.coverage, 0.9)
        XCTAssertLessThan(found.medianError, 0.3)
    }
}
