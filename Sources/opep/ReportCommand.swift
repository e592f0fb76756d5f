import ArgumentParser
import Foundation
import OPEPHistory
import OPEPKit
import OPEPReport

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a physiotherapist's report of a recorded session: one self-contained HTML file.",
        discussion: """
            Analyses the recording as `opep analyze` does (same options) and writes the summary, \
            pressure, pitch and sound level over time, the sets and every breath with its flags \
            (too short, too soft, too hard, unsteady). The file has no external references and \
            prints to A4 or Letter from any browser.
            """
    )

    @Argument(help: "The recording ('-' for raw PCM on standard input).")
    var file: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The HTML file to write (default: the recording's name with .html).", valueName: "FILE"))
    var output: String?

    @Option(help: "Title of the report (default: the recording's file name).")
    var title: String?

    @Option(help: ArgumentHelp("Breaths shorter than this are flagged 'too short', in seconds.", valueName: "s"))
    var minBreath: Double = 2

    @Option(help: ArgumentHelp("Breaths whose pressure spans more than this are flagged 'unsteady', in cmH2O.", valueName: "cmH2O"))
    var unsteadyRange: Double = 8

    @OptionGroup var raw: RawInputOptions
    @OptionGroup var analysis: AnalysisOptions

    func validate() throws {
        if file == "-", raw.format == nil {
            throw ValidationError("Reading '-' needs --sample-rate and --encoding to know the raw PCM layout.")
        }
        if file == "-", output == nil { throw ValidationError("Reading '-' needs -o FILE for the report.") }
        guard minBreath >= 0, minBreath <= 60 else { throw ValidationError("--min-breath must be between 0 and 60 s.") }
        guard unsteadyRange > 0, unsteadyRange <= 100 else { throw ValidationError("--unsteady-range must be between 0 and 100 cmH2O.") }
    }

    func run() throws {
        // Where the report's data come from. Today only a recording; the session history will add
        // sources here (`--session ID` for one stored session, `--from/--to` for an adherence
        // report rendered with `AdherenceReportDocument`), each producing the same plain input.
        let source: any SessionReportSource = RecordingReportSource(path: file, raw: raw, analysis: analysis, title: title)
        let input = try source.reportInput()
        let document = SessionReportDocument(input: input, rules: BreathFlagRules(minimumDuration: minBreath, unsteadyRange: unsteadyRange))
        let target = output ?? defaultOutput()
        try writeReport(document.html(), to: target)
        for warning in source.warnings { printError("warning: \(warning)") }
    }

    private func defaultOutput() -> String {
        ((file as NSString).deletingPathExtension) + ".html"
    }
}

/// Writes a finished HTML document, or fails with one line naming the file.
func writeReport(_ html: String, to path: String) throws {
    do {
        try Data(html.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        throw failure("\(path): cannot write the report (\(error.localizedDescription))")
    }
}

/// Something a session report can be made from.
protocol SessionReportSource {
    func reportInput() throws -> SessionReportInput
    /// Problems worth telling about that did not stop the report.
    var warnings: [String] { get }
}

/// A recording, analysed now; its frames are decimated while they stream, so memory stays bounded
/// whatever the length.
final class RecordingReportSource: SessionReportSource {
    let path: String
    let raw: RawInputOptions
    let analysis: AnalysisOptions
    let title: String?
    private(set) var warnings: [String] = []

    init(path: String, raw: RawInputOptions, analysis: AnalysisOptions, title: String?) {
        self.path = path
        self.raw = raw
        self.analysis = analysis
        self.title = title
    }

    func reportInput() throws -> SessionReportInput {
        var decimator = FrameDecimator(maxPoints: SessionReportDocument.maxPlotPoints)
        let result = try SessionAnalysis.run(path: path, raw: raw.format, options: analysis) { frame in
            decimator.add(frame)
        }
        warnings = result.settings.warnings
        let name = path == "-" ? "standard input" : (path as NSString).lastPathComponent
        var details: [(label: String, value: String)] = [
            ("Recording", name), ("Format", result.settings.format),
        ]
        if let floor = result.settings.noiseFloorDb { details.append(("Noise floor", fixed(floor, 1) + " dBFS")) }
        return SessionReportInput(
            title: title ?? "OPEP session: \(name)", details: details, device: result.settings.device, target: result.settings.target,
            summary: result.summary, breaths: result.breaths, sets: result.sets, trace: decimator.points)
    }
}
