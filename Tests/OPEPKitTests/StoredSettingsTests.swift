import Foundation
import XCTest

@testable import OPEPKit

/// The tolerant decoders read back every field the encoders write (a field they forgot would
/// silently fall back to its default), and fall back to the defaults for what is missing.
final class StoredSettingsTests: XCTestCase {
    /// Every number in a JSON tree changed (×1.5 plus 1, integers plus 1), strings kept (these
    /// settings hold no booleans).
    private func changed(_ value: Any) -> Any {
        switch value {
        case let object as [String: Any]: return object.mapValues(changed)
        case let array as [Any]: return array.map(changed)
        case let number as NSNumber:
            let double = number.doubleValue
            return double == double.rounded() && abs(double) < 1e6 ? NSNumber(value: Int(double) + 1) : NSNumber(value: double * 1.5 + 1)
        default: return value
        }
    }

    /// Encodes `value`, changes every number, decodes and encodes again: the same JSON comes back.
    private func assertEveryFieldRoundTrips<T: Codable>(_ value: T, file: StaticString = #filePath, line: UInt = #line) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let original = try JSONSerialization.jsonObject(with: try encoder.encode(value))
        let edited = try JSONSerialization.data(withJSONObject: changed(original), options: [.sortedKeys])
        let decoded = try JSONDecoder().decode(T.self, from: edited)
        let again = try JSONSerialization.jsonObject(with: try encoder.encode(decoded))
        XCTAssertEqual(
            String(decoding: try JSONSerialization.data(withJSONObject: again, options: [.sortedKeys]), as: UTF8.self),
            String(decoding: edited, as: UTF8.self), file: file, line: line)
    }

    func testEveryStoredFieldIsReadBack() throws {
        var configuration = SessionAnalyzer.Configuration(sampleRate: 44100)
        configuration.detector.noiseFloorDB = -60
        try assertEveryFieldRoundTrips(configuration)
        let summary = SessionSummary(
            duration: 60, breathCount: 10, setCount: 1, huffCoughCount: 2, exhalationTime: 30, meanBreathDuration: 3,
            meanPressure: 14, meanPitch: 16, zoneShares: ZoneShares(below: 0.1, within: 0.8, above: 0.1),
            exhalationInhalationRatio: 2.5, inhalationsHeard: 4, flutterShare: 0.9,
            unmeasured: UnmeasuredTime(total: 3, clipped: 0.1, tooNoisy: 0.2, tooQuiet: 0.3, tooFar: 0.4, bandLimited: 0.5, noFlutter: 0.6, gainControl: 0.7))
        try assertEveryFieldRoundTrips(summary)
        try assertEveryFieldRoundTrips(SignalFigures(snrDB: 21.5, modulation: 0.4, clippedShare: 0.03, upperFrequencyHz: 4100, problem: .clipped))
    }

    func testMissingSettingsTakeTheirDefaults() throws {
        let study = try JSONDecoder().decode(
            FlutterPitchTracker.Configuration.self, from: Data(#"{"sampleRate": 8000, "method": "study"}"#.utf8))
        XCTAssertEqual(study, FlutterPitchTracker.Configuration(sampleRate: 8000, method: .study))
        let band = try JSONDecoder().decode(
            FlutterPitchTracker.Configuration.self, from: Data(#"{"sampleRate": 8000, "lowerFrequency": 8, "upperFrequency": 30}"#.utf8))
        XCTAssertEqual(band, FlutterPitchTracker.Configuration(sampleRate: 8000, lowerFrequency: 8, upperFrequency: 30))
        XCTAssertEqual(band.analysisDuration, 2.5 / 8, "the span follows the stored band")
        let analyzer = try JSONDecoder().decode(SessionAnalyzer.Configuration.self, from: Data(#"{"tracker": {"sampleRate": 22050}}"#.utf8))
        XCTAssertEqual(analyzer, SessionAnalyzer.Configuration(sampleRate: 22050))
        XCTAssertThrowsError(try JSONDecoder().decode(FlutterPitchTracker.Configuration.self, from: Data("{}".utf8)),
                             "without a sample rate there is nothing to default to")
    }

    /// Settings stored before 2026-11-29 counted the tracker's three runs in frames; they read as
    /// that many frames of their own frame interval, and the runs in seconds win where both are.
    func testRunsCountedInFramesReadAsSeconds() throws {
        func decoded(_ json: String) throws -> FlutterPitchTracker.Configuration {
            try JSONDecoder().decode(FlutterPitchTracker.Configuration.self, from: Data(json.utf8))
        }
        let stored = try decoded(#"{"sampleRate": 44100, "frameInterval": 0.01, "maxRunLength": 10, "reportAfter": 10, "gaugeAfter": 2}"#)
        XCTAssertEqual(stored, FlutterPitchTracker.Configuration(sampleRate: 44100), "the defaults of then are the defaults of now")
        let coarse = try decoded(#"{"sampleRate": 44100, "frameInterval": 0.02, "maxRunLength": 8, "reportAfter": 5, "gaugeAfter": 1}"#)
        XCTAssertEqual(coarse.longestRunTime, 0.16, accuracy: 1e-12)
        XCTAssertEqual(coarse.reportRunTime, 0.1, accuracy: 1e-12)
        XCTAssertEqual(coarse.gaugeRunTime, 0.02, accuracy: 1e-12)
        XCTAssertNoThrow(try coarse.validate())
        let both = try decoded(#"{"sampleRate": 44100, "reportAfter": 5, "reportRunTime": 0.07}"#)
        XCTAssertEqual(both.reportRunTime, 0.07)
        XCTAssertThrowsError(try decoded(#"{"sampleRate": 44100, "reportAfter": "ten"}"#), "a former key of the wrong type is an error, as any other")
    }

    /// A run shorter than a frame or longer than the average counts is refused, naming it.
    func testRunsOutsideTheirRangeAreRefused() {
        var configuration = FlutterPitchTracker.Configuration(sampleRate: 44100)
        configuration.reportRunTime = 0.2
        XCTAssertThrowsError(try configuration.validate()) { XCTAssertTrue("\($0)".contains("reportRunTime"), "\($0)") }
        configuration = FlutterPitchTracker.Configuration(sampleRate: 44100)
        configuration.gaugeRunTime = 0.001
        XCTAssertThrowsError(try configuration.validate()) { XCTAssertTrue("\($0)".contains("gaugeRunTime"), "\($0)") }
    }
}
