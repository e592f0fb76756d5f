import ArgumentParser
import Foundation
import OPEPHistory
import OPEPKit
import OPEPReport
import OPEPServer

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a physiotherapist's report of a recorded session: one self-contained HTML file.",
        discussion: """
            Analyses the recording as `opep analyze` does (same options), or takes a session from \
            the history (--session ID), and writes the summary, pressure, pitch and sound level over \
            time, the sets and every breath with its flags (too short, too soft, too hard, \
            unsteady). With --from and --to it writes the adherence over those days instead: \
            sessions per day against the plan, breaths and time in target per session, the mean \
            pressure trend. The file has no external references and prints to A4 or Letter.
            """
    )

    @Argument(help: "The recording ('-' for raw PCM on standard input); or use --session, or --from/--to.")
    var file: String?

    @Option(help: ArgumentHelp("Report a session from the history instead of a recording.", valueName: "ID"))
    var session: Int64?

    @Option(help: ArgumentHelp("Adherence report over the history from this day.", valueName: "YYYY-MM-DD"))
    var from: String?

    @Option(help: ArgumentHelp("Adherence report up to this day, included.", valueName: "YYYY-MM-DD"))
    var to: String?

    @Option(help: ArgumentHelp("Sessions a day to count the adherence report against (default: the plan's).", valueName: "N"))
    var sessionsPerDay: Int?

    @Option(help: ArgumentHelp("In a clinic's history, the adherence of this patient (`opep clinic` lists them), with their plan.", valueName: "ID"))
    var patient: Int64?

    @OptionGroup var history: HistoryDatabaseOptions

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
        let sources = [file != nil, session != nil, from != nil || to != nil].filter { $0 }.count
        guard sources == 1 else {
            throw ValidationError("Give one of: a recording, --session ID, or --from and --to for an adherence report.")
        }
        if (from == nil) != (to == nil) { throw ValidationError("An adherence report needs both --from and --to.") }
        if let from, let to, try HistoryCommand.day(from, option: "--from") > HistoryCommand.day(to, option: "--to") {
            throw ValidationError("--from must not be after --to.")
        }
        if let sessionsPerDay, !(1...10).contains(sessionsPerDay) { throw ValidationError("--sessions-per-day must be between 1 and 10.") }
        if patient != nil, from == nil { throw ValidationError("--patient is for an adherence report: give --from and --to as well.") }
        if (session != nil || from != nil), output == nil {
            throw ValidationError("A report from the history needs -o FILE.")
        }
        if file == "-", raw.format == nil {
            throw ValidationError("Reading '-' needs --sample-rate and --encoding to know the raw PCM layout.")
        }
        if file == "-", output == nil { throw ValidationError("Reading '-' needs -o FILE for the report.") }
        guard minBreath >= 0, minBreath <= 60 else { throw ValidationError("--min-breath must be between 0 and 60 s.") }
        guard unsteadyRange > 0, unsteadyRange <= 100 else { throw ValidationError("--unsteady-range must be between 0 and 100 cmH2O.") }
    }

    func run() throws {
        if let from, let to {
            let first = try HistoryCommand.day(from, option: "--from")
            let last = try HistoryCommand.day(to, option: "--to")
            let store = try openHistory()
            var document: AdherenceReportDocument
            do {
                document = try store.adherenceReport(
                    from: first, through: last, patient: try patient.map { try store.requirePatient($0) }, title: title)
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw failure("history: \(error)")
            }
            if let sessionsPerDay { document.plan.sessionsPerDay = sessionsPerDay }
            try writeReport(document.html(), to: output ?? "adherence.html")
            return
        }
        let source: any SessionReportSource
        if let session {
            source = HistoryReportSource(store: try openHistory(), id: session, title: title)
        } else {
            source = RecordingReportSource(path: file ?? "-", raw: raw, analysis: analysis, title: title)
        }
        let input = try source.reportInput()
        let document = SessionReportDocument(input: input, rules: BreathFlagRules(minimumDuration: minBreath, unsteadyRange: unsteadyRange))
        try writeReport(document.html(), to: output ?? defaultOutput())
        for warning in source.warnings { printError("warning: \(warning)") }
    }

    private func openHistory() throws -> HistoryStore {
        try history.openStore(missing: { "\($0): no history there yet" })
    }

    private func defaultOutput() -> String {
        (((file ?? "report") as NSString).deletingPathExtension) + ".html"
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

/// A session from the history: its stored summary, breaths, sets and frames (20 per second).
final class HistoryReportSource: SessionReportSource {
    let store: HistoryStore
    let id: Int64
    let title: String?
    let warnings: [String] = []

    init(store: HistoryStore, id: Int64, title: String?) {
        self.store = store
        self.id = id
        self.title = title
    }

    func reportInput() throws -> SessionReportInput {
        let detail: SessionDetail?
        let frames: [StoredFrame]?
        do {
            detail = try store.session(id)
            frames = try store.frames(id)
        } catch {
            throw failure("history: \(error)")
        }
        guard let detail, let frames, let summary = detail.summary else {
            throw failure("history: no session \(id) (see `opep history`)")
        }
        var decimator = FrameDecimator(maxPoints: SessionReportDocument.maxPlotPoints)
        for frame in frames {
            decimator.add(SessionFrame(
                time: frame.time, pitch: frame.pitch, pressure: frame.pressure, confidence: frame.confidence,
                exhaling: frame.exhaling, zone: frame.pressure.map(detail.plan.target.zone(of:)), levelDB: frame.levelDB))
        }
        let row = detail.session
        let details: [(label: String, value: String)] = [
            ("Session", "\(row.id), \(row.source.rawValue), \(row.status.rawValue)"),
            ("Started", HistoryCommand.localTime(row.startedAt)),
        ]
        return SessionReportInput(
            title: title ?? "OPEP session \(row.id), \(HistoryCommand.localTime(row.startedAt))", details: details,
            device: detail.plan.device, target: detail.plan.target, summary: summary, breaths: detail.breaths,
            sets: detail.sets, trace: decimator.points)
    }
}
