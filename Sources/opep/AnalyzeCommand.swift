import ArgumentParser
import Foundation
import OPEPHistory
import OPEPKit

struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Measure recorded OPEP sessions: every breath with its pressure, the sets, time in target.",
        discussion: """
            Reads WAV, AIFF/AIFC and CAF natively and other formats (m4a, mp3, flac, ogg) through \
            ffmpeg when it is installed; '-' reads raw PCM from standard input (with --sample-rate \
            and --encoding), e.g. `arecord -f FLOAT_LE -r 44100 -c 1 -t raw | opep analyze - \
            --sample-rate 44100 --encoding f32le`. Text gives a summary and a per-breath table; \
            json one object with schema_version, settings, summary, breaths, sets and events (one line per file when \
            there are several); csv one row per frame.
            """
    )

    @Argument(help: "Recordings to analyse ('-' for raw PCM on standard input).")
    var files: [String]

    @Option(help: "Output format.")
    var format: ReportFormat = .text

    @Option(help: ArgumentHelp("Write one report per recording into this folder (NAME.txt, .json or .csv) instead of standard output.", valueName: "DIR"))
    var outputDir: String?

    @OptionGroup var raw: RawInputOptions
    @OptionGroup var analysis: AnalysisOptions

    func validate() throws {
        if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("Standard input ('-') can be read only once.") }
        if format == .csv, files.count > 1, outputDir == nil {
            throw ValidationError("Frames of several recordings need --output-dir, so each gets its own CSV file.")
        }
        if files.contains("-"), raw.format == nil {
            throw ValidationError("Reading '-' needs --sample-rate and --encoding to know the raw PCM layout.")
        }
    }

    func run() throws {
        if let outputDir {
            do {
                try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
            } catch {
                throw failure("\(outputDir): cannot create folder")
            }
        }
        var failed = 0
        var printed = false
        var usedNames: Set<String> = []
        for path in files {
            do {
                let target = outputDir.map { reportPath(for: path, in: $0, avoiding: &usedNames) }
                try report(path, to: target, separated: printed)
                printed = true
            } catch {
                printError("error: \(error)")
                failed += 1
            }
        }
        if failed > 0 { throw ExitCode.failure }
    }

    private func report(_ path: String, to target: String?, separated: Bool) throws {
        let output = try target.map { try TextOutput(path: $0) } ?? TextOutput()
        let result: SessionAnalysis
        switch format {
        case .csv:
            try output.line(FrameCSV.header)
            result = try SessionAnalysis.run(path: path, raw: raw.format, options: analysis) { frame in
                try output.line(FrameCSV.row(frame))
            }
        case .json:
            result = try SessionAnalysis.run(path: path, raw: raw.format, options: analysis)
            try output.line(try reportJSON(result, pretty: files.count == 1 || outputDir != nil))
        case .text:
            result = try SessionAnalysis.run(path: path, raw: raw.format, options: analysis)
            if separated, target == nil { try output.line("") }
            try output.line(TextReport.render(result))
        }
        try output.close()
        if format != .text {
            for warning in result.settings.warnings { printError("warning: \(warning)") }
        }
    }

    /// `NAME.FORMAT` in `folder`, or `NAME-2.FORMAT` and so on when an earlier recording of the same
    /// name already took it, so no report overwrites another.
    private func reportPath(for file: String, in folder: String, avoiding used: inout Set<String>) -> String {
        let name = file == "-" ? "stdin" : ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        var candidate = name
        var number = 2
        while used.contains(candidate) {
            candidate = "\(name)-\(number)"
            number += 1
        }
        used.insert(candidate)
        return (folder as NSString).appendingPathComponent("\(candidate).\(format.rawValue)")
    }
}
