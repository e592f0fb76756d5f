import Foundation
import XCTest

/// What `opep analyze` reports for one recording: its JSON report and, when asked for, its frames.
struct Analysis {
    var file: String
    var report: AnalysisReport
    /// The frame CSV's rows; empty unless the frames were asked for.
    var frames: [FrameRow]

    /// The share of frames with a pitch (0-1); 0 without frames.
    var pitchShare: Double {
        frames.isEmpty ? 0 : Double(frames.filter { $0.pitch != nil }.count) / Double(frames.count)
    }

    /// The file's name without its folder.
    var name: String { (file as NSString).lastPathComponent }

    /// The breaths' start times, e.g. `3.12 9.80`, or `-` without any.
    var starts: String {
        report.breaths.isEmpty ? "-" : report.breaths.map { String(format: "%.2f", $0.start) }.joined(separator: " ")
    }

    /// One line for failure messages: breaths, their starts and, with frames, the pitch share.
    var line: String {
        var text = "\(name): \(report.summary.breaths) breaths in \(report.summary.sets) sets, starts [\(starts)] s"
        if !frames.isEmpty {
            text += String(format: ", pitch on %.2f %% of %d frames", 100 * pitchShare, frames.count)
        }
        return text
    }
}

extension XCTestCase {
    /// Analyses `files` with `opep analyze --format json` and, with `frames`, `--format csv`: one
    /// process per format for all the files (the debug build's start-up costs more than a short
    /// file), each report written into a folder of `directory`. The files' names must differ.
    /// Fails when `opep` fails on any file.
    func analyzeRecordings(
        _ files: [String], frames: Bool = false, in directory: TemporaryDirectory,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [Analysis] {
        let folder = directory.path("reports-\(UUID().uuidString)")
        let formats = frames ? ["json", "csv"] : ["json"]
        for format in formats {
            let result = try run(["analyze"] + files + ["--format", format, "--output-dir", folder], file: file, line: line)
            guard result.status == 0 else {
                throw ToolFailed(description: "opep analyze --format \(format) failed (\(result.status)): \(result.stderr)")
            }
        }
        return try files.map { path in
            let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            let base = (folder as NSString).appendingPathComponent(name)
            let json = try String(contentsOfFile: base + ".json", encoding: .utf8)
            let csv = frames ? try String(contentsOfFile: base + ".csv", encoding: .utf8) : ""
            return Analysis(file: path, report: try AnalysisReport(json: json), frames: frames ? try FrameRow.parse(csv) : [])
        }
    }
}
