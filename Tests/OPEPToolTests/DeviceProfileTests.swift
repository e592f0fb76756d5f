import Foundation
import XCTest

/// The pressure line and the target change the pressures and shares exactly as they should; the
/// pitches do not move.
final class DeviceProfileTests: XCTestCase {
    func testProfileFileReplacesTheLine() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)
        let profile = try directory.write(
            #"{"name":"Test","lower_frequency_hz":10,"upper_frequency_hz":40,"intercept_cmh2o":0,"slope_cmh2o_per_hz":1}"#,
            to: "test.json")

        let report = try analyze([session.wav, "--device", profile])

        XCTAssertEqual(report.settings.device.name, "Test")
        try assertPressures(of: report, intercept: 0, slope: 1, pitchesOf: try analyze([session.wav]))
    }

    func testProfileWrittenInAReportReadsBack() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)
        let output = try run(["analyze", session.wav, "--format", "json", "--intercept", "2", "--slope", "0.5"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let settings = try XCTUnwrap(object["settings"] as? [String: Any])
        let device = try JSONSerialization.data(withJSONObject: try XCTUnwrap(settings["device"]))
        let profile = try directory.write(device, to: "from-report.json")

        let report = try analyze([session.wav, "--device", profile])

        XCTAssertEqual(report.settings.device.interceptCmH2O, 2)
        XCTAssertEqual(report.settings.device.slopeCmH2OPerHz, 0.5)
        try assertPressures(of: report, intercept: 2, slope: 0.5, pitchesOf: try analyze([session.wav]))
    }

    func testInterceptAndSlopeOverrideTheLine() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)
        let acapella = try analyze([session.wav])
        XCTAssertEqual(acapella.settings.device.interceptCmH2O, -4.659)
        XCTAssertEqual(acapella.settings.device.slopeCmH2OPerHz, 1.119)
        try assertPressures(of: acapella, intercept: -4.659, slope: 1.119, pitchesOf: acapella)

        let report = try analyze([session.wav, "--intercept=-3", "--slope", "1.5"])

        XCTAssertEqual(report.settings.device.name, "Acapella")
        try assertPressures(of: report, intercept: -3, slope: 1.5, pitchesOf: acapella)
    }

    func testTargetChangesTheShareInTarget() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)
        let standard = try analyze([session.wav])

        let narrow = try analyze([session.wav, "--target", "12-18"])
        let frames = try run(["analyze", session.wav, "--target", "12-18", "--format", "csv"])

        XCTAssertEqual(narrow.settings.target.lower, 12)
        XCTAssertEqual(narrow.settings.target.upper, 18)
        let standardShare = try XCTUnwrap(standard.summary.timeShare)
        let narrowShare = try XCTUnwrap(narrow.summary.timeShare)
        XCTAssertLessThan(narrowShare.within, standardShare.within)
        XCTAssertEqual(narrowShare.below + narrowShare.within + narrowShare.above, 1, accuracy: 1e-9)
        XCTAssertEqual(narrow.summary.meanPressure, standard.summary.meanPressure)
        let flutter = try FrameRow.parse(frames.stdout).filter { $0.pressure != nil }
        for frame in flutter {
            let pressure = try XCTUnwrap(frame.pressure)
            guard abs(pressure - 12) > 0.001, abs(pressure - 18) > 0.001 else { continue }
            XCTAssertEqual(frame.zone, pressure < 12 ? "below" : pressure > 18 ? "above" : "in", "\(pressure) cmH2O at \(frame.time) s")
        }
        let inTarget = Double(flutter.filter { $0.zone == "in" }.count) / Double(flutter.count)
        XCTAssertEqual(narrowShare.within, inTarget, accuracy: 0.01)
    }

    /// Every breath's mean pressure is the line applied to its mean pitch, and the pitches are
    /// those of `reference` (the line must not change what is heard).
    private func assertPressures(
        of report: AnalysisReport, intercept: Double, slope: Double, pitchesOf reference: AnalysisReport,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertEqual(report.settings.device.interceptCmH2O, intercept, file: file, line: line)
        XCTAssertEqual(report.settings.device.slopeCmH2OPerHz, slope, file: file, line: line)
        XCTAssertEqual(report.breaths.count, reference.breaths.count, file: file, line: line)
        XCTAssertFalse(report.breaths.isEmpty, file: file, line: line)
        for (breath, heard) in zip(report.breaths, reference.breaths) {
            let pitch = try XCTUnwrap(breath.meanPitch, file: file, line: line)
            XCTAssertEqual(pitch, try XCTUnwrap(heard.meanPitch), accuracy: 1e-9, file: file, line: line)
            XCTAssertEqual(try XCTUnwrap(breath.meanPressure), intercept + slope * pitch, accuracy: 1e-6, file: file, line: line)
        }
        let meanPitch = try XCTUnwrap(report.summary.meanPitch, file: file, line: line)
        XCTAssertEqual(try XCTUnwrap(report.summary.meanPressure), intercept + slope * meanPitch, accuracy: 1e-6, file: file, line: line)
    }

    private func analyze(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> AnalysisReport {
        let result = try run(["analyze", "--format", "json"] + arguments, file: file, line: line)
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
        return try AnalysisReport(json: result.stdout)
    }
}
