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
}
