import XCTest
@testable import OPEPKit

/// Ours and the study's tracker: their settings, and what each does when the flutter drops out.
final class TrackerMethodTests: XCTestCase {
    private func frames(_ samples: [Float], sampleRate: Double, method: FlutterPitchTracker.Method) throws -> [FlutterPitchTracker.Frame] {
        var tracker = try FlutterPitchTracker(configuration: .init(sampleRate: sampleRate, method: method))
        var out: [FlutterPitchTracker.Frame] = []
        tracker.process(samples) { out.append($0) }
        return out
    }

    func testTheStudyMethodUsesTheStudysSettings() {
        let study = FlutterPitchTracker.Configuration(sampleRate: 44100, method: .study)
        XCTAssertEqual(study.highPassCutoff, 250)
        XCTAssertEqual(study.continuationAcceptance, study.acceptance)
        XCTAssertEqual(study.acceptance, 0.6)
        XCTAssertEqual(study.decayRate, 0.8)
        XCTAssertEqual(study.holdDuration, 0)
        let ours = FlutterPitchTracker.Configuration(sampleRate: 44100)
        XCTAssertEqual(ours.method, .continuity)
        XCTAssertLessThan(ours.continuationAcceptance, ours.acceptance)
        XCTAssertGreaterThan(ours.holdDuration, 0)
    }

    func testBothTrackAFlutterAcrossTheBand() throws {
        for method in FlutterPitchTracker.Method.allCases {
            for (i, pitch) in [11.0, 16, 23, 31, 38].enumerated() {
                let signal = TestSignals.flutter(sampleRate: 44100, duration: 2, pitch: { _ in pitch }, noiseDB: -10, seed: UInt64(i + 1))
                let found = try frames(signal, sampleRate: 44100, method: method).filter { $0.time > 0.35 && $0.time < 1.9 }
                let pitches = found.compactMap(\.pitch)
                XCTAssertGreaterThanOrEqual(Double(pitches.count) / Double(found.count), 0.95, "\(method) at \(pitch) Hz")
                XCTAssertLessThan(median(pitches.map { abs($0 - pitch) }) ?? 1, 0.15, "\(method) at \(pitch) Hz")
            }
        }
    }

    /// 1.5 s of flutter, then `gap` s of the same breath noise without flutter, then flutter again.
    private func flutterWithGap(_ gap: Double, pitch: Double = 20) -> [Float] {
        let flutter = TestSignals.flutter(sampleRate: 44100, duration: 1.5, pitch: { _ in pitch }, seed: 5)
        let noise = TestSignals.noise(sampleRate: 44100, duration: gap, rms: 0.1, seed: 6)
        return flutter + noise + TestSignals.flutter(sampleRate: 44100, duration: 1.5, pitch: { _ in pitch }, seed: 8)
    }

    func testOursHoldsThePitchThroughAShortDropout() throws {
        let found = try frames(flutterWithGap(0.2), sampleRate: 44100, method: .continuity)
        let around = found.filter { $0.time > 1.2 && $0.time < 2.0 }
        XCTAssertEqual(around.filter { $0.pitch == nil }.count, 0, "ours reports through a 0.2 s dropout")
        XCTAssertGreaterThan(around.filter { $0.confidence == 0 }.count, 5, "the held frames say they were not heard")
        for frame in around { XCTAssertEqual(frame.pitch ?? 0, 20, accuracy: 1, "at \(frame.time) s") }
    }

    func testBothLetGoOfALongDropout() throws {
        for method in FlutterPitchTracker.Method.allCases {
            let found = try frames(flutterWithGap(1), sampleRate: 44100, method: method)
            let inside = found.filter { $0.time > 2.0 && $0.time < 2.3 }
            XCTAssertEqual(inside.filter { $0.pitch != nil }.count, 0, "\(method) reports a pitch 0.5 s into a 1 s dropout")
        }
    }

    func testOursContinuesOnWeakerEvidenceWhileTheSoundLasts() throws {
        let clear = TestSignals.flutter(sampleRate: 44100, duration: 1.5, pitch: { _ in 20 }, seed: 11)
        let weak = TestSignals.flutter(sampleRate: 44100, duration: 1.5, pitch: { _ in 20 }, noiseDB: 12, seed: 12, amplitude: 0.025)
        let ours = try frames(clear + weak, sampleRate: 44100, method: .continuity).filter { $0.time > 1.8 && $0.time < 2.8 }
        let study = try frames(clear + weak, sampleRate: 44100, method: .study).filter { $0.time > 1.8 && $0.time < 2.8 }
        XCTAssertGreaterThan(Double(ours.filter { $0.pitch != nil }.count) / Double(ours.count), 0.95, "ours follows the weaker flutter")
        XCTAssertLessThan(Double(study.filter { $0.pitch != nil }.count) / Double(study.count), 0.8, "the study's needs 0.6 throughout")
        for frame in ours where frame.pitch != nil { XCTAssertEqual(frame.pitch ?? 0, 20, accuracy: 1.5, "at \(frame.time) s") }
    }

    /// The time of the last frame with a pitch, for 1.5 s of flutter and then 1 s of white noise
    /// `dropDB` under it, tracked with `fadeDrop`.
    private func lastPitch(dropDB: Double, fadeDrop: Double) throws -> Double {
        let flutter = TestSignals.flutter(sampleRate: 44100, duration: 1.5, pitch: { _ in 20 }, seed: 11)
        let noise = TestSignals.noise(sampleRate: 44100, duration: 1, rms: 0.1 * pow(10, dropDB / 20), seed: 12)
        var configuration = FlutterPitchTracker.Configuration(sampleRate: 44100)
        configuration.fadeDrop = fadeDrop
        var tracker = try FlutterPitchTracker(configuration: configuration)
        var last = 0.0
        tracker.process(flutter + noise) { if $0.pitch != nil { last = $0.time } }
        return last
    }

    func testOursLetsGoAtOnceWhenTheSoundFades() throws {
        XCTAssertLessThan(try lastPitch(dropDB: -20, fadeDrop: 10), 1.6, "a sound 20 dB down ends the track")
        XCTAssertGreaterThan(try lastPitch(dropDB: -6, fadeDrop: 10), 1.75, "a sound 6 dB down is held")
        XCTAssertGreaterThan(try lastPitch(dropDB: -20, fadeDrop: 200), 1.75, "without the fade rule the track is held")
    }

    func testTheFadeDropIsValidated() {
        var configuration = FlutterPitchTracker.Configuration(sampleRate: 44100)
        configuration.fadeDrop = 0.5
        XCTAssertThrowsError(try configuration.validate()) { error in
            XCTAssertTrue("\(error)".contains("fadeDrop"), "\(error)")
        }
    }
}
