import ArgumentParser
import Foundation
import OPEPHistory
import OPEPKit
import OPEPServer

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List, show, export and import the sessions saved by `opep serve`.",
        discussion: """
            `opep history` (or `list`) prints the sessions, newest first, optionally between --from and \
            --to (days, YYYY-MM-DD, both included); `show ID` prints one session with its breaths; \
            `export ID --format json|csv` writes it as `opep analyze` would (the CSV has 20 frames per \
            second, as kept in the history); `import FILE...` saves sessions from their JSON documents \
            (`opep analyze --format json`, the phone's export), each once however often it is imported. \
            A session starts at the document's recorded_at, else at the file's modification time. In a \
            clinic's history, --patient ID lists one patient's sessions, or imports the files as theirs.
            """
    )

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case list, show, export, `import`
    }

    enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
        case json, csv
    }

    @Argument(help: "list, show ID, export ID or import FILE...")
    var action: Action = .list

    @Argument(help: ArgumentHelp("The session's id (for show and export), or the documents to import.", valueName: "id-or-files"))
    var operands: [String] = []

    /// The session's id, for show and export.
    private var id: Int64? { operands.first.flatMap { Int64($0) } }

    @OptionGroup var history: HistoryDatabaseOptions

    @Option(help: "Export format: json or csv.")
    var format: ExportFormat?

    @Option(help: ArgumentHelp("List sessions from this day on.", valueName: "YYYY-MM-DD"))
    var from: String?

    @Option(help: ArgumentHelp("List sessions up to this day, included.", valueName: "YYYY-MM-DD"))
    var to: String?

    @Option(help: ArgumentHelp(
        "List only this patient's sessions, or import the files as theirs (`opep clinic` lists the patients).", valueName: "ID"))
    var patient: Int64?

    func validate() throws {
        switch action {
        case .list:
            if let first = operands.first { throw ValidationError("`list` takes no session id (got \(first)); use `opep history show \(first)` for one session.") }
            if format != nil { throw ValidationError("--format is for `export`, e.g. `opep history export 12 --format csv`.") }
        case .show, .export:
            guard let first = operands.first else { throw ValidationError("`\(action.rawValue)` needs a session id, e.g. `opep history \(action.rawValue) 12`; `opep history` lists them.") }
            guard let id, id > 0 else { throw ValidationError("Session ids are positive whole numbers, not \(first).") }
            guard operands.count == 1 else { throw ValidationError("`\(action.rawValue)` takes one session id, not \(operands.count).") }
            if from != nil || to != nil || patient != nil { throw ValidationError("--from, --to and --patient are for `list`.") }
            if action == .show, format != nil { throw ValidationError("--format is for `export`; `show` prints text.") }
            if action == .export, format == nil { throw ValidationError("`export` needs --format json or --format csv.") }
        case .import:
            if operands.isEmpty { throw ValidationError("`import` needs at least one file, e.g. `opep history import session.json`.") }
            if format != nil || from != nil || to != nil { throw ValidationError("`import` takes only files, --patient and --database.") }
        }
        if let patient, patient < 1 { throw ValidationError("Patient ids are positive whole numbers, not \(patient).") }
        let start = try from.map { try Self.day($0, option: "--from") }
        let end = try to.map { try Self.day($0, option: "--to") }
        if let start, let end, start > end {
            throw ValidationError("--from (\(from!)) is after --to (\(to!)).")
        }
    }

    func run() throws {
        let store = try history.openStore(
            missing: history.isGiven && action != .import ? { "\($0): no history there (`opep serve --database \($0)` creates one)" } : nil)
        switch action {
        case .list:
            try list(store)
        case .show:
            guard let analysis = try store.exportAnalysis(id!), let detail = try store.session(id!) else { throw failure("no session \(id!) in \(store.location)") }
            print("Session \(id!), \(detail.session.source.rawValue), \(detail.session.status.rawValue), started \(Self.localTime(detail.session.startedAt))")
            print(TextReport.render(analysis))
        case .export:
            let text: String?
            switch format! {
            case .json: text = try store.exportJSON(id!).map { $0 + "\n" }
            case .csv: text = try store.exportCSV(id!)
            }
            guard let text else { throw failure("no session \(id!) in \(store.location)") }
            FileHandle.standardOutput.write(Data(text.utf8))
        case .import:
            try importFiles(into: store)
        }
    }

    /// Imports each file, one line each; a bad file is one error line and the exit status is 1.
    private func importFiles(into store: HistoryStore) throws {
        if let patient { _ = try store.requirePatient(patient) }
        var failed = false
        for file in operands {
            do {
                let saved = try Self.importFile(file, into: store, patient: patient)
                print("\(file): session \(saved.id)\(saved.created ? "" : " (already in the history)")")
            } catch {
                printError("error: \(error)")
                failed = true
            }
        }
        if failed { throw ExitCode.failure }
    }

    private static func importFile(_ file: String, into store: HistoryStore, patient: Int64?) throws -> SessionImport {
        guard FileManager.default.fileExists(atPath: file) else { throw failure("\(file): no such file") }
        let data: Data
        let modified: Date
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
            modified = try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date ?? Date()
        } catch {
            throw failure("\(file): cannot read it (\(error.localizedDescription))")
        }
        let document: SessionAnalysis
        do {
            document = try SessionAnalysis(json: data)
        } catch let error as DecodingError {
            throw failure("\(file): not a session document as `opep analyze --format json` writes it: \(LiveSession.describe(error))")
        }
        do {
            return try store.importSession(document, source: .imported, defaultStart: modified, patient: patient)
        } catch let error as SessionDocumentError {
            throw failure("\(file): the session document does not hold together: \(error)")
        } catch {
            throw failure("\(file): cannot save it (\(error))")
        }
    }

    private func list(_ store: HistoryStore) throws {
        let calendar = Calendar.current
        let start = try from.map { try Self.day($0, option: "--from") }
        let end = try to.map { try Self.day($0, option: "--to") }.flatMap { calendar.date(byAdding: .day, value: 1, to: $0) }
        if let patient { _ = try store.requirePatient(patient) }
        let rows = try store.sessions(from: start, to: end, patient: patient)
        if rows.isEmpty {
            let whose = patient.map { " of patient \($0)" } ?? ""
            print("No sessions\(whose)\(from != nil || to != nil ? " in that period" : " yet: `opep serve` records them").")
            return
        }
        print("id".leftPad(5) + "  " + "started".rightPad(16) + "  " + "length".leftPad(7) + "  " + "breaths".leftPad(7) + "  " + "sets".leftPad(4)
            + "  " + "pressure".leftPad(8) + "  " + "in target".leftPad(9) + "  source    status")
        for row in rows {
            let pressure = row.meanPressureCmH2O.map { fixed($0, 1) } ?? "-"
            let share = row.shareInTarget.map { percent($0) } ?? "-"
            let minutes = Int(row.durationS) / 60
            let seconds = Int(row.durationS) % 60
            print("\(row.id)".leftPad(5) + "  " + Self.localTime(row.startedAt).rightPad(16) + "  " + "\(minutes):\(String(format: "%02d", seconds))".leftPad(7)
                + "  " + "\(row.breaths)".leftPad(7) + "  " + "\(row.sets)".leftPad(4) + "  " + pressure.leftPad(8) + "  " + share.leftPad(9)
                + "  " + row.source.rawValue.rightPad(8) + "  " + row.status.rawValue)
        }
    }

    /// Midnight (local time) of a `YYYY-MM-DD` day.
    static func day(_ text: String, option: String) throws -> Date {
        guard let date = CalendarDay.start(of: text) else {
            throw ValidationError("\(option) wants a day written YYYY-MM-DD, e.g. 2026-11-21, not \"\(text)\".")
        }
        return date
    }

    /// An ISO 8601 UTC time as local `YYYY-MM-DD HH:MM`.
    static func localTime(_ iso: String) -> String {
        guard let date = try? Date(iso, strategy: .iso8601) else { return iso }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}
