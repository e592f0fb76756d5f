import Foundation
import GRDB

/// The history in a SQLite file through GRDB: WAL (``DatabasePool``), so pages read while
/// sessions write, or in memory (``DatabaseQueue``) for tests.
///
/// The schema grows by named migrations ("v1-sessions", ...) that are never edited once shipped:
/// a later change adds a new migration.
final class SQLiteHistoryDatabase: HistoryDatabase {
    let writer: any DatabaseWriter
    let location: String

    /// Opens the database file at `path` (which must exist) and migrates it.
    init(path: String) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        do {
            writer = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw HistoryError("\(path): cannot open the history (\(error))")
        }
        location = path
        try migrate()
    }

    /// A database in memory.
    init() throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        writer = try DatabaseQueue(configuration: configuration)
        location = "memory"
        try migrate()
    }

    func read<T>(_ work: (any SQLConnection) throws -> T) throws -> T {
        try writer.read { db in try work(GRDBConnection(db: db)) }
    }

    @discardableResult
    func write<T>(_ work: (any SQLConnection) throws -> T) throws -> T {
        try writer.write { db in try work(GRDBConnection(db: db)) }
    }

    func appliedMigrations() throws -> [String] {
        try writer.read { db in try Self.migrator.appliedMigrations(db) }
    }

    private func migrate() throws {
        do {
            try Self.migrator.migrate(writer)
        } catch {
            throw HistoryError("\(location): cannot bring the history's tables up to date (\(error))")
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
        // When a session being recorded was last saved (seconds since 1970), so that one whose
        // server stopped without ending it can be told from one still running; rows written
        // before it have none.
        migrator.registerMigration("v7-saved-at") { db in
            try db.alter(table: "sessions") { t in t.add(column: "saved_at", .double) }
        }
        // A clinic's history: physiotherapists' accounts and their patients, each patient with a
        // plan and the SHA-256 of the access token their coach presents. A session may belong to
        // a patient; rows written before, and the sessions of a personal history, belong to none.
        migrator.registerMigration("v8-clinicians-and-patients") { db in
            try db.create(table: "clinicians") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("username", .text).notNull().unique()
                t.column("name", .text).notNull()
                t.column("password_hash", .text).notNull()
                t.column("created_at", .double).notNull()
            }
            try db.create(table: "patients") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("clinician_id", .integer).notNull().indexed().references("clinicians")
                t.column("name", .text).notNull()
                t.column("plan_json", .text).notNull()
                t.column("token_hash", .text).notNull().unique()
                t.column("created_at", .double).notNull()
            }
            try db.alter(table: "sessions") { t in t.add(column: "patient_id", .integer).references("patients") }
            try db.create(index: "sessions_on_patient_id", on: "sessions", columns: ["patient_id", "started_at"])
        }
        // A clinician signed in: the SHA-256 of the token their browser keeps, until when it holds.
        migrator.registerMigration("v9-clinician-sign-ins") { db in
            try db.create(table: "clinician_sign_ins") { t in
                t.primaryKey("token_hash", .text)
                t.column("clinician_id", .integer).notNull().indexed().references("clinicians", onDelete: .cascade)
                t.column("created_at", .double).notNull()
                t.column("expires_at", .double).notNull()
            }
        }
        migrator.registerMigration("v10-archived-patients") { db in
            try db.alter(table: "patients") { t in t.add(column: "archived_at", .double) }
        }
        return migrator
    }
}

/// A GRDB connection as the history's queries use it.
private struct GRDBConnection: SQLConnection {
    let db: Database

    func execute(_ sql: String, _ arguments: [any SQLArgument]) throws -> Int {
        try db.makeStatement(sql: sql).execute(arguments: Self.arguments(arguments))
        return db.changesCount
    }

    func rows(_ sql: String, _ arguments: [any SQLArgument]) throws -> [SQLRow] {
        let statement = try db.makeStatement(sql: sql)
        let columns = SQLRow.Columns(statement.columnNames)
        return try Row.fetchAll(statement, arguments: Self.arguments(arguments)).map { row in
            SQLRow(columns: columns, values: row.databaseValues.map(Self.value))
        }
    }

    private static func arguments(_ arguments: [any SQLArgument]) -> StatementArguments {
        StatementArguments(arguments.map { argument -> (any DatabaseValueConvertible)? in
            switch argument.sqlValue {
            case .null: nil
            case .integer(let value): value
            case .real(let value): value
            case .text(let value): value
            case .boolean(let value): value
            }
        })
    }

    private static func value(_ value: DatabaseValue) -> SQLValue {
        switch value.storage {
        case .null: .null
        case .int64(let value): .integer(value)
        case .double(let value): .real(value)
        case .string(let value): .text(value)
        case .blob(let data): .text(String(decoding: data, as: UTF8.self))
        }
    }
}
