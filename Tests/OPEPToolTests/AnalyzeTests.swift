import Foundation
import XCTest

final class AnalyzeTests: XCTestCase {
    func testTextReportCountsBreathsAndSets() throws {
        let directory = try TemporaryDirectory()
        let options = ["--sets", "2", "--breaths", "3", "--sample-rate", "16000", "--rest", "5"]
        let session = try simulateSession(in: directory, options: options)
        let breaths = session.truth.breaths.count
        XCTAssertEqual(breaths, 6)

        let result = try run(["analyze", session.wav])

        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        let lines = nonEmptyLines(result.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("\(breaths) breaths in \(session.truth.setCount) sets") }, result.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  #  set    start   length  mean") }, result.stdout)
        let table = lines.filter { $0.range(of: #"^\s+\d+\s+\d+\s+\d+:\d\d\.\d"#, options: .regularExpression) != nil }
        XCTAssertEqual(table.count, breaths, result.stdout)
        for (number, row) in table.enumerated() {
            let columns = row.split(separator: " ")
            XCTAssertEqual(columns.first.map(String.init), "\(number + 1)")
            XCTAssertEqual(columns[9].last, "%", "the share measured")
            let length = try XCTUnwrap(Double(columns[3])), measured = try XCTUnwrap(Double(columns[9].dropLast()))
            let reasons = columns.dropFirst(10).joined(separator: " ")
            guard !reasons.isEmpty else { continue }
            var seconds = 0.0
            for part in reasons.split(separator: ", ") {
                let match = part.wholeMatch(of: /(clipped|too noisy|too quiet|too far|band-limited|no flutter|gain control|onsets and short gaps) (\d+\.\d) s/)
                XCTAssertNotNil(match, "a reason and its seconds: \(row)")
                seconds += match.flatMap { Double($0.output.2) } ?? 0
            }
            XCTAssertLessThanOrEqual(seconds, length * (1 - measured / 100) + 0.1, "the reasons cover the time not measured: \(row)")
        }
        XCTAssertEqual(lines.filter { $0.hasPrefix("Set ") }.count, session.truth.setCount)
    }

    func testJSONReportMatchesTheTruth() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)

        let result = try run(["analyze", session.wav, "--format", "json"])

        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["schema_version", "settings", "summary", "breaths", "sets", "events"])
        XCTAssertEqual(object["schema_version"] as? Int, 2, "the document names its layout (docs/analysis-document.md)")
        let report = try AnalysisReport(json: result.stdout)
        XCTAssertEqual(report.settings.file, session.wav)
        XCTAssertEqual(report.summary.breaths, session.truth.breaths.count)
        XCTAssertEqual(report.summary.sets, session.truth.setCount)
        XCTAssertEqual(report.breaths.count, session.truth.breaths.count)
        for (found, truth) in zip(report.breaths, session.truth.breaths) {
            XCTAssertEqual(found.index, truth.index + 1)
            XCTAssertEqual(found.set, truth.set + 1)
            XCTAssertEqual(found.start, truth.start, accuracy: 0.2)
            XCTAssertEqual(try XCTUnwrap(found.meanPressure), truth.meanPressure, accuracy: 1, "breath \(found.index)")
        }
    }

    func testFrameCSVIsWellFormed() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)

        let result = try run(["analyze", session.wav, "--format", "csv"])

        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(firstLine(result.stdout).hasPrefix("time_s,pitch_hz,pressure_cmh2o,confidence,exhaling"), firstLine(result.stdout))
        let frames = try FrameRow.parse(result.stdout)
        let interval = try frameInterval(of: session.wav)
        XCTAssertLessThan(try XCTUnwrap(frames.first).time, interval)
        XCTAssertGreaterThan(try XCTUnwrap(frames.last).time, session.truth.duration - 0.25)
        for (previous, frame) in zip(frames, frames.dropFirst()) {
            XCTAssertGreaterThan(frame.time, previous.time)
            XCTAssertEqual(frame.time - previous.time, interval, accuracy: 0.0015, "at \(frame.time) s")
        }
        for frame in frames {
            XCTAssertEqual(frame.pitch == nil, frame.pressure == nil, "at \(frame.time) s")
            XCTAssertEqual(frame.zone.isEmpty, frame.pressure == nil, "at \(frame.time) s")
            XCTAssertTrue(["", "below", "in", "above"].contains(frame.zone), "zone '\(frame.zone)' at \(frame.time) s")
            if !frame.exhaling { XCTAssertNil(frame.pitch, "pitch outside an exhalation at \(frame.time) s") }
            XCTAssertTrue((0...1).contains(frame.confidence), "confidence \(frame.confidence) at \(frame.time) s")
        }
        XCTAssertTrue(frames.contains { $0.pitch != nil })
    }

    func testFramePitchFollowsTheTruePitch() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)
        let truth = try TruthRow.parse(String(contentsOfFile: session.truthCSV, encoding: .utf8))

        let result = try run(["analyze", session.wav, "--format", "csv"])

        XCTAssertEqual(result.status, 0, result.stderr)
        var errors: [Double] = []
        for frame in try FrameRow.parse(result.stdout) {
            guard let pitch = frame.pitch, session.truth.isInsideExhalation(frame.time), let truePitch = truePitch(at: frame.time, in: truth) else {
                continue
            }
            errors.append(abs(pitch - truePitch))
        }
        let flutterFrames = session.truth.breaths.reduce(0) { $0 + ($1.flutterEnd - $1.flutterStart) } / (try frameInterval(of: session.wav))
        XCTAssertGreaterThan(Double(errors.count), 0.8 * flutterFrames)
        XCTAssertLessThan(try XCTUnwrap(median(errors)), 0.15)
    }

    /// The spacing of the frames `opep analyze` makes of `wav`, as its JSON report's settings give it.
    private func frameInterval(of wav: String) throws -> Double {
        let result = try run(["analyze", wav, "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try AnalysisReport(json: result.stdout).settings.frameInterval
    }

    /// The true pitch at `time`, interpolated between the truth rows 10 ms apart; nil unless both
    /// neighbouring rows have a pitch.
    private func truePitch(at time: Double, in rows: [TruthRow]) -> Double? {
        let index = Int((time * 100).rounded(.down))
        guard index >= 0, index + 1 < rows.count, let before = rows[index].pitch, let after = rows[index + 1].pitch else { return nil }
        let fraction = (time - rows[index].time) / (rows[index + 1].time - rows[index].time)
        return before + (after - before) * fraction
    }
}
