import Foundation
import XCTest

final class ReportAndCalibrateTests: XCTestCase {
    func testReportWritesOneRowPerBreath() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)
        let output = directory.path("report.html")

        let result = try run(["report", session.wav, "-o", output, "--title", "Ann <&> \"B\""])

        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        let html = try String(contentsOfFile: output, encoding: .utf8)
        XCTAssertEqual(html.components(separatedBy: "<tr class=\"breath\"").count - 1, session.truth.breaths.count)
        XCTAssertTrue(html.contains("<h1>Ann &lt;&amp;&gt; &quot;B&quot;</h1>"))
        XCTAssertFalse(html.contains("http://") || html.contains("https://"))
        XCTAssertLessThan(html.utf8.count, 200_000)
    }

    func testReportOfAMissingFileFails() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("missing.wav")
        let result = try run(["report", missing, "-o", directory.path("r.html")])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertEqual(nonEmptyLines(result.stderr).count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains(missing), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path("r.html")))
    }

    /// `analyze --calibrate QUIET.wav` takes the noise floor from a recording of the quiet room:
    /// the same noise ten times louder reads 20 dB higher.
    func testTheNoiseFloorIsMeasuredFromTheQuietRoom() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)
        var floors: [Double] = []
        for amplitude in [0.002, 0.02] {
            var generator = SplitMix64(seed: 5)
            let samples = (0..<32000).map { _ in amplitude * (Double(generator.next() >> 11) / Double(1 << 52) - 1) }
            var wav = Data("RIFF".utf8) + littleEndian(UInt32(36 + 2 * samples.count)) + Data("WAVEfmt ".utf8)
            wav += littleEndian(UInt32(16)) + littleEndian(UInt16(1)) + littleEndian(UInt16(1))
            wav += littleEndian(UInt32(16000)) + littleEndian(UInt32(32000)) + littleEndian(UInt16(2)) + littleEndian(UInt16(16))
            wav += Data("data".utf8) + littleEndian(UInt32(2 * samples.count))
            for sample in samples { wav += littleEndian(UInt16(bitPattern: Int16((sample * 32767).rounded()))) }
            let quiet = try directory.write(wav, to: "quiet-\(amplitude).wav")
            let result = try run(["analyze", session.wav, "--calibrate", quiet, "--format", "json"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let document = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let settings = try XCTUnwrap(document?["settings"] as? [String: Any])
            floors.append(try XCTUnwrap(settings["noise_floor_db"] as? Double))
        }
        XCTAssertEqual(floors[1] - floors[0], 20, accuracy: 0.5, "\(floors)")
    }

    private func littleEndian<T: FixedWidthInteger>(_ value: T) -> Data {
        withUnsafeBytes(of: value.littleEndian) { Data($0) }
    }

    /// The manometer reads the true pitch through a known line, -3 + 1.3 × pitch, and started 2.5 s
    /// after the recording; calibrate finds both, and analyze accepts the profile it writes.
    func testCalibrateRecoversAShiftedLine() throws {
        let directory = try TemporaryDirectory()
        let options = ["--sets", "1", "--breaths", "4", "--sample-rate", "16000", "--rest", "5"]
        let session = try simulateSession(in: directory, options: options, seed: 3)
        let truth = try TruthRow.parse(String(contentsOfFile: session.truthCSV, encoding: .utf8))
        var csv = "time_s,pressure_cmh2o,note\n"
        for row in truth {
            let pressure = row.pitch.map { -3 + 1.3 * $0 } ?? 0
            csv += "\(String(format: "%.3f", row.time - 2.5)),\(String(format: "%.4f", pressure)),x\n"
        }
        let manometer = try directory.write(csv, to: "manometer.csv")
        let profile = directory.path("device.json")
        let plot = directory.path("calibration.html")

        let result = try run(["calibrate", session.wav, manometer, "-o", profile, "--name", "Test device", "--plot", plot, "--format", "json"])

        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let fit = try XCTUnwrap(object["fit"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(fit["slope"] as? Double), 1.3, accuracy: 0.03)
        XCTAssertEqual(try XCTUnwrap(fit["intercept"] as? Double), -3, accuracy: 0.6)
        XCTAssertGreaterThan(try XCTUnwrap(fit["r_squared"] as? Double), 0.9)
        XCTAssertEqual(try XCTUnwrap(object["offset_s"] as? Double), 2.5, accuracy: 0.05)
        let written = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: profile))) as? [String: Any])
        XCTAssertEqual(Set(written.keys), ["name", "lower_frequency_hz", "upper_frequency_hz", "intercept_cmh2o", "slope_cmh2o_per_hz"])
        XCTAssertEqual(written["name"] as? String, "Test device")
        let plotHTML = try String(contentsOfFile: plot, encoding: .utf8)
        XCTAssertTrue(plotHTML.contains(">Pitch (Hz)</text>") && plotHTML.contains(">Pressure (cmH2O)</text>"))

        let analysis = try run(["analyze", session.wav, "--device", profile, "--format", "json"])
        XCTAssertEqual(analysis.status, 0, analysis.stderr)
        let report = try AnalysisReport(json: analysis.stdout)
        XCTAssertEqual(report.settings.device.name, "Test device")
        XCTAssertEqual(report.settings.device.slopeCmH2OPerHz, try XCTUnwrap(fit["slope"] as? Double), accuracy: 1e-9)

        // The same with the offset given: the same line.
        let given = try run(["calibrate", session.wav, manometer, "-o", profile, "--offset", "2.5"])
        XCTAssertEqual(given.status, 0, given.stderr)
        XCTAssertTrue(given.stdout.contains("manometer offset 2.500 s (given)"), given.stdout)
    }

    func testCalibrateWithAPressureWaveform() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory, options: ["--sets", "1", "--breaths", "3", "--sample-rate", "16000", "--rest", "5"], seed: 5)
        let truth = try TruthRow.parse(String(contentsOfFile: session.truthCSV, encoding: .utf8))
        // A 1 kHz waveform: the true pressure plus a 2 cmH2O oscillation at the true flutter rate.
        var csv = "time_s,pressure_cmh2o\n"
        var phase = 0.0
        for (index, row) in truth.enumerated() {
            let next = index + 1 < truth.count ? truth[index + 1] : row
            for step in 0..<10 {
                let f = Double(step) / 10
                let time = row.time + 0.01 * f
                var pressure = 0.0
                if let pitch = row.pitch, let p = row.pressure {
                    let pitchNow = pitch + f * ((next.pitch ?? pitch) - pitch)
                    phase += 2 * .pi * pitchNow / 1000
                    pressure = p + f * ((next.pressure ?? p) - p) + 2 * sin(phase)
                }
                csv += "\(String(format: "%.4f", time - 1)),\(String(format: "%.3f", pressure))\n"
            }
        }
        let manometer = try directory.write(csv, to: "waveform.csv")

        let result = try run(["calibrate", session.wav, manometer, "-o", directory.path("d.json"), "--pressure-signal", "--format", "json"])

        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(object["offset_s"] as? Double), 1, accuracy: 0.05)
        let agreement = try XCTUnwrap(object["pitch_agreement"] as? [String: Any])
        XCTAssertLessThan(try XCTUnwrap(agreement["median_abs_difference_hz"] as? Double), 0.5)
        XCTAssertGreaterThan(try XCTUnwrap(agreement["share_within_0_5_hz"] as? Double), 0.5)
        let fit = try XCTUnwrap(object["fit"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(fit["slope"] as? Double), 1.119, accuracy: 0.05)
    }

    func testCalibrateBadManometerFiles() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)
        let given = ["--offset", "0"], aligned: [String] = [], tracked = ["--offset", "0", "--pressure-signal"]
        // The last two once crashed the alignment and kept the pressure's flutter tracked for hours.
        let cases: [(name: String, text: String, problem: String, ways: [[String]])] = [
            ("empty.csv", "", "the manometer file is empty", [given]),
            ("noheader.csv", "0,1\n0.01,2\n", "needs a header line", [given]),
            ("malformed.csv", "time_s,pressure_cmh2o\n0,1\n0.01,two\n", "line 3: pressure 'two' is not a number", [given]),
            ("backwards.csv", "time_s,pressure_cmh2o\n0,1\n0.02,2\n0.01,3\n", "line 4: time 0.01 s does not increase", [given]),
            ("far.csv", "time_s,pressure_cmh2o\n1000,10\n1000.01,12\n1000.02,14\n", "do not overlap", [given]),
            ("huge-time.csv", "time_s,pressure_cmh2o\n0,10\n1e300,12\n", "line 3: time 1e+300 s lies beyond", [given, aligned, tracked]),
            ("days.csv", "time_s,pressure_cmh2o\n0,10\n0.01,12\n1e7,12\n", "more than a calibration takes", [given, aligned, tracked]),
        ]
        for item in cases {
            let path = try directory.write(item.text, to: item.name)
            for way in item.ways {
                let result = try run(["calibrate", session.wav, path, "-o", directory.path("d.json")] + way)
                XCTAssertNotEqual(result.status, 0, item.name)
                let lines = nonEmptyLines(result.stderr)
                XCTAssertEqual(lines.count, 1, "\(item.name) \(way): \(result.stderr)")
                XCTAssertTrue(lines.first?.contains(path) ?? false, "\(item.name) \(way): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains(item.problem), "\(item.name) \(way): \(result.stderr)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path("d.json")))
    }
}
