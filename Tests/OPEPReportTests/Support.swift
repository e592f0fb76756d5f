import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import OPEPKit
import OPEPReport
import OPEPSimulation
import XCTest

/// A simulated session analysed in-process: the report and the decimated trace.
struct AnalysedSession {
    var truth: GroundTruth
    var report: SessionReport
    var trace: [TracePoint]
    var frameCount: Int

    static func make(sets: Int = 1, breaths: Int = 3, seed: UInt64 = 1) throws -> AnalysedSession {
        var configuration = SimulationConfiguration(sampleRate: 16000, sets: sets, breathsPerSet: breaths, restBetweenSets: 5, seed: seed)
        configuration.pressureRange = 8...24
        var simulator = try SessionSimulator(configuration: configuration)
        var run = try AnalysisRun(configuration: .init(sampleRate: 16000))
        var decimator = FrameDecimator(maxPoints: 2000)
        let report = run.run(reading: { simulator.render(into: &$0, maxFrames: 4096) }) { output in
            if case let .frame(frame) = output { decimator.add(frame) }
        }
        return AnalysedSession(truth: simulator.groundTruth, report: report, trace: decimator.points, frameCount: decimator.frameCount)
    }

    func input(title: String = "Session") -> SessionReportInput {
        SessionReportInput(
            title: title, details: [("Recording", "a<b>&\"c\".wav")], device: .acapella, target: .standard,
            summary: report.summary, breaths: report.breaths, sets: report.sets, trace: trace)
    }
}

/// Parses a document as XML (the reports are polyglot HTML/XML), failing the test if it is not
/// well-formed.
func parseXML(_ html: String, file: StaticString = #filePath, line: UInt = #line) throws -> XMLDocument {
    do {
        return try XMLDocument(xmlString: html, options: [])
    } catch {
        XCTFail("not well-formed: \(error)", file: file, line: line)
        throw error
    }
}

/// Every URL-ish attribute and text that would load something from outside the file.
func externalReferences(_ html: String) -> [String] {
    var found: [String] = []
    for pattern in [#"https?://"#, #"\bsrc\s*="#, #"\bhref\s*=\s*"(?!#|data:)[^"]*""#, #"@import"#, #"url\((?!\s*['"]?(#|data:))"#, #"<script"#] {
        let regex = try! NSRegularExpression(pattern: pattern, options: [.caseInsensitive])
        for match in regex.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
            found.append(String(html[Range(match.range, in: html)!]))
        }
    }
    return found
}

/// The text of every cell of the rows matching an XPath.
func rows(_ document: XMLDocument, _ xpath: String) throws -> [[String]] {
    try document.nodes(forXPath: xpath).map { row in
        (row.children ?? []).filter { $0.name == "td" }.map { $0.stringValue ?? "" }
    }
}

/// A session frame with the given values (SessionFrame's initialiser is internal to OPEPKit; its
/// properties are public).
func frame(time: Double, pitch: Double?, pressure: Double?, exhaling: Bool, level: Double) -> SessionFrame {
    var frame = frameTemplate
    frame.time = time
    frame.pitch = pitch
    frame.pressure = pressure
    frame.exhaling = exhaling
    frame.levelDB = level
    return frame
}

private let frameTemplate = try! JSONDecoder().decode(SessionFrame.self, from: Data(#"{"time_s":0,"confidence":0,"exhaling":false,"level_db":-60}"#.utf8))

/// A breath with the given values, through its JSON keys.
func breath(index: Int, set: Int, start: Double, duration: Double, mean: Double?, min: Double?, max: Double?) throws -> Breath {
    var object: [String: Any] = ["index": index, "set": set, "start_s": start, "end_s": start + duration, "duration_s": duration, "flutter_share": 1]
    object["mean_pressure_cmh2o"] = mean
    object["min_pressure_cmh2o"] = min
    object["max_pressure_cmh2o"] = max
    object["mean_pitch_hz"] = mean.map { DeviceProfile.acapella.pitch(forPressure: $0) }
    object["share_in_target"] = 0.5
    return try JSONDecoder().decode(Breath.self, from: JSONSerialization.data(withJSONObject: object))
}

/// Gaussian noise from a seeded generator (Box-Muller).
struct GaussianNoise {
    var state: UInt64

    mutating func uniform() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return (Double(z >> 11) + 0.5) / Double(1 << 53)
    }

    mutating func next() -> Double {
        (-2 * log(uniform())).squareRoot() * cos(2 * .pi * uniform())
    }
}
