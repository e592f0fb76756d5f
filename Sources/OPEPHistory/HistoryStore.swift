import Foundation
import GRDB
import OPEPKit

/// Where a session's sound came from.
public enum SessionSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// The dashboard page streaming a microphone over `/live`.
    case browser
    /// `opep monitor`, the terminal gauge.
    case monitor
    /// A recording analysed from a file.
    case file
    /// A session analysed elsewhere (the phone's engine, `opep analyze --format json`) and
    /// imported as its document: no frames.
    case imported
}

/// Whether a session is still being recorded, ended with `stop`, or ended without it.
public enum SessionStatus: String, Sendable, Hashable, Codable, CaseIterable {
    case recording, complete, interrupted
}

/// Why the history could not do something.
public struct HistoryError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The therapy history in SQLite: the plan (one row), every session with its summary, breaths,
/// sets, events and final frames decimated to 20 per second (imported sessions have no frames).
///
/// The schema grows by named migrations ("v1-sessions", ...) that are never edited once shipped:
/// a later change adds a new migration. A file database uses WAL (``DatabasePool``), so the
/// server's pages read while sessions write; tests use an in-memory ``DatabaseQueue``.
public final class HistoryStore: Sendable {
    let writer: any DatabaseWriter
    /// The database file, or nil in memory.
    public let path: String?

    /// Mode of the folder the history creates for itself: its owner only.
    public static let folderMode = 0o700
    /// Mode of the database and its WAL files (SQLite gives those the database's): its owner only.
    public static let fileMode = 0o600

    /// Opens (creating if needed) the history at `path`, creating its folder, and migrates it.
    /// The history holds health data: a folder it creates is its owner's only (0700), and the
    /// database and its WAL files are made readable by their owner only (0600), also when an
    /// earlier release created them readable by everyone.
    public init(path: String) throws {
        let manager = FileManager.default
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !manager.fileExists(atPath: folder) {
            do {
                try manager.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: Self.folderMode])
            } catch {
                throw HistoryError("\(folder): cannot create the history's folder (\(error.localizedDescription))")
            }
        }
        if !manager.fileExists(atPath: path),
            !manager.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: Self.fileMode])
        {
            throw HistoryError("\(path): cannot create the history")
        }
        for file in [path, path + "-wal", path + "-shm"] where manager.fileExists(atPath: file) {
            do {
                try manager.setAttributes([.posixPermissions: Self.fileMode], ofItemAtPath: file)
            } catch {
                throw HistoryError("\(file): cannot make the history private (mode 0600): \(error.localizedDescription)")
            }
        }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        do {
            writer = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw HistoryError("\(path): cannot open the history (\(error))")
        }
        self.path = path
        try migrate()
    }

    /// A history in memory, for tests.
    public init() throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        writer = try DatabaseQueue(configuration: configuration)
        path = nil
        try migrate()
    }

    /// The history's usual place: `$XDG_DATA_HOME/opep/history.sqlite`, else
    /// `~/.local/share/opep/history.sqlite` (`~/Library/Application Support/opep/` on macOS).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        #if os(macOS)
        let folder = (home as NSString).appendingPathComponent("Library/Application Support/opep")
        #else
        let data = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (home as NSString).appendingPathComponent(".local/share")
        let folder = (data as NSString).appendingPathComponent("opep")
        #endif
        return (folder as NSString).appendingPathComponent("history.sqlite")
    }

    /// The names of the migrations applied, oldest first.
    public func appliedMigrations() throws -> [String] {
        try writer.read { db in try Self.migrator.appliedMigrations(db) }
    }

    private func migrate() throws {
        do {
            try Self.migrator.migrate(writer)
        } catch {
            throw HistoryError("\(path ?? "memory"): cannot bring the history's tables up to date (\(error))")
        }
    }

    /// Every migration ever shipped, in order. Never edit one: add the next.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-sessions") { db in
            try db.create(table: "plan") { t in
                t.primaryKey("id", .integer).check { $0 == 1 }
                t.column("json", .text).notNull()
                t.column("updated_at", .double).notNull()
            }
            try db.create(table: "sessions") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("started_at", .double).notNull().indexed()
                t.column("ended_at", .double)
                t.column("duration_s", .double).notNull().defaults(to: 0)
                t.column("source", .text).notNull().check { [SessionSource.browser.rawValue, SessionSource.monitor.rawValue, SessionSource.file.rawValue].contains($0) }
                t.column("status", .text).notNull().check { [SessionStatus.recording.rawValue, SessionStatus.complete.rawValue, SessionStatus.interrupted.rawValue].contains($0) }
                t.column("plan_json", .text).notNull()
                t.column("configuration_json", .text).notNull()
                t.column("input", .text).notNull()
                t.column("frame_interval_s", .double).notNull()
                t.column("latency_s", .double).notNull()
                t.column("summary_json", .text)
                t.column("breath_count", .integer).notNull().defaults(to: 0)
                t.column("set_count", .integer).notNull().defaults(to: 0)
                t.column("mean_pressure_cmh2o", .double)
                t.column("share_in_target", .double)
                t.column("exhalation_time_s", .double).notNull().defaults(to: 0)
                t.column("warnings_json", .text).notNull().defaults(to: "[]")
                t.column("audio_path", .text)
            }
            // Column names are the JSON keys of OPEPKit's records, so rows decode into them.
            try db.create(table: "breaths") { t in
                t.column("session_id", .integer).notNull().references("sessions", onDelete: .cascade)
                t.column("index", .integer).notNull()
                t.column("set", .integer).notNull()
                t.column("start_s", .double).notNull()
                t.column("end_s", .double).notNull()
                t.column("duration_s", .double).notNull()
                t.column("mean_pressure_cmh2o", .double)
                t.column("min_pressure_cmh2o", .double)
                t.column("max_pressure_cmh2o", .double)
                t.column("mean_pitch_hz", .double)
                t.column("share_in_target", .double)
                t.column("flutter_share", .double).notNull()
                t.primaryKey(["session_id", "index"])
            }
            try db.create(table: "sets") { t in
                t.column("session_id", .integer).notNull().references("sessions", onDelete: .cascade)
                t.column("index", .integer).notNull()
                t.column("start_s", .double).notNull()
                t.column("end_s", .double).notNull()
                t.column("breaths", .integer).notNull()
                t.column("huff_coughs", .integer).notNull()
                t.column("mean_pressure_cmh2o", .double)
                t.column("share_in_target", .double)
                t.primaryKey(["session_id", "index"])
            }
            try db.create(table: "events") { t in
                t.column("session_id", .integer).notNull().references("sessions", onDelete: .cascade)
                t.column("seq", .integer).notNull()
                t.column("type", .text).notNull()
                t.column("time_s", .double).notNull()
                t.column("duration_s", .double)
                t.column("breath", .integer)
                t.column("set", .integer)
                t.primaryKey(["session_id", "seq"])
            }
            try db.create(table: "frames", options: [.withoutRowID]) { t in
                t.column("session_id", .integer).notNull().references("sessions", onDelete: .cascade)
                t.column("t", .double).notNull()
                t.column("pitch_hz", .double)
                t.column("pressure_cmh2o", .double)
                t.column("exhaling", .boolean).notNull()
                t.column("confidence", .double).notNull()
                t.column("level_db", .double).notNull()
                t.primaryKey(["session_id", "t"])
            }
        }
        // SQLite cannot change a CHECK: the sessions table is rebuilt to allow the source "imported"
        // and to hold the import key, keeping its ids and its autoincrement counter.
        migrator.registerMigration("v2-imports") { db in
            try db.create(table: "new_sessions") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("started_at", .double).notNull()
                t.column("ended_at", .double)
                t.column("duration_s", .double).notNull().defaults(to: 0)
                t.column("source", .text).notNull().check { ["browser", "monitor", "file", "imported"].contains($0) }
                t.column("status", .text).notNull().check { ["recording", "complete", "interrupted"].contains($0) }
                t.column("plan_json", .text).notNull()
                t.column("configuration_json", .text).notNull()
                t.column("input", .text).notNull()
                t.column("frame_interval_s", .double).notNull()
                t.column("latency_s", .double).notNull()
                t.column("summary_json", .text)
                t.column("breath_count", .integer).notNull().defaults(to: 0)
                t.column("set_count", .integer).notNull().defaults(to: 0)
                t.column("mean_pressure_cmh2o", .double)
                t.column("share_in_target", .double)
                t.column("exhalation_time_s", .double).notNull().defaults(to: 0)
                t.column("warnings_json", .text).notNull().defaults(to: "[]")
                t.column("audio_path", .text)
                // SHA-256 of an imported document's canonical JSON; nil for sessions recorded here.
                t.column("import_key", .text).unique()
            }
            let columns = """
                id, started_at, ended_at, duration_s, source, status, plan_json, configuration_json, input, frame_interval_s,
                latency_s, summary_json, breath_count, set_count, mean_pressure_cmh2o, share_in_target, exhalation_time_s,
                warnings_json, audio_path
                """
            try db.execute(sql: "INSERT INTO new_sessions (\(columns)) SELECT \(columns) FROM sessions")
            try db.execute(sql: """
                DELETE FROM sqlite_sequence WHERE name = 'new_sessions';
                INSERT INTO sqlite_sequence (name, seq) SELECT 'new_sessions', seq FROM sqlite_sequence WHERE name = 'sessions';
                """)
            try db.drop(table: "sessions")
            try db.rename(table: "new_sessions", to: "sessions")
            try db.create(index: "sessions_on_started_at", on: "sessions", columns: ["started_at"])
        }
        // Imports were keyed by their document re-encoded by the importing release, which every new
        // engine setting changed: the keys are rewritten as ``ImportKey`` from the stored rows. A
        // session whose new key another already holds (saved twice by that bug) keeps its old key,
        // so nothing is lost and later imports find the first.
        migrator.registerMigration("v3-stable-import-keys") { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT id FROM sessions WHERE import_key IS NOT NULL ORDER BY id")
            var taken: Set<String> = []
            for id in ids {
                let key = try ImportKey(session: id, in: db).text
                guard taken.insert(key).inserted else { continue }
                try db.execute(sql: "UPDATE sessions SET import_key = ? WHERE id = ?", arguments: [key, id])
            }
        }
        // Breath events carry their number in their set; rows written before read it from their
        // breath and set numbers (``SessionAnalysis/numberingBreathsInSets(_:)``).
        migrator.registerMigration("v4-event-breath-in-set") { db in
            try db.alter(table: "events") { t in t.add(column: "breath_in_set", .integer) }
        }
        // The signal check: a breath's time without a pitch and the reasons for it (JSON of
        // ``UnmeasuredTime``), a frame's reason; rows written before it have neither.
        migrator.registerMigration("v5-signal-check") { db in
            try db.alter(table: "breaths") { t in t.add(column: "unmeasured", .text) }
            try db.alter(table: "frames") { t in t.add(column: "signal", .text) }
        }
        // The placement check: a breath's signal figures and verdict (JSON of ``SignalFigures``);
        // rows written before it have none.
        migrator.registerMigration("v6-breath-signal") { db in
            try db.alter(table: "breaths") { t in t.add(column: "signal", .text) }
        }
        return migrator
    }

    // MARK: The plan

    /// The saved plan, or the standard one when none was saved.
    public func plan() throws -> TherapyPlan {
        let json = try writer.read { db in try String.fetchOne(db, sql: "SELECT json FROM plan WHERE id = 1") }
        guard let json else { return .standard }
        return try JSONDecoder().decode(TherapyPlan.self, from: Data(json.utf8))
    }

    /// Validates and saves the plan.
    public func savePlan(_ plan: TherapyPlan) throws {
        try plan.validate()
        let json = try Self.json(plan)
        try writer.write { db in
            try db.execute(
                sql: "INSERT INTO plan (id, json, updated_at) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json, updated_at = excluded.updated_at",
                arguments: [json, Date().timeIntervalSince1970])
        }
    }

    /// Deletes a session with everything recorded for it; false when there was none.
    @discardableResult
    public func deleteSession(_ id: Int64) throws -> Bool {
        try writer.write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    static func json<T: Encodable>(_ value: T) throws -> String {
        try reportJSON(value, keys: .asCoded, pretty: false)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }
}
