import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// The history on a PostgreSQL server, through PostgresNIO: a clinic's store that many phones and
/// servers write to at once (issue 25).
///
/// Up to `connections` connections are open at a time, each made when first needed and kept
/// while it works; one that the server closed (a restart, a network fault) is dropped and the
/// next call opens a new one, so the store reconnects by itself. Calls block their thread on the
/// connection's event loop, as the SQLite store blocks on its file. The schema has its own named
/// migrations, recorded in `opep_migrations` and never edited once shipped; two processes
/// migrating at once take turns under an advisory lock.
final class PostgresHistoryDatabase: HistoryDatabase {
    let location: String
    private let address: HistoryLocation.PostgresAddress
    private let logger: Logger
    private let slots: DispatchSemaphore
    private let idle = NIOLockedValueBox<[PostgresConnection]>([])
    private let nextID = NIOLockedValueBox(0)

    private let deadlines: Deadlines

    /// How long the server may leave the store waiting before the call fails as unavailable.
    struct Deadlines {
        /// For a connection to be opened and accepted (TCP, then the server's handshake), in seconds.
        var connect: Int64 = 10
        /// For one statement's answer, in seconds; past it the connection is closed (a server that
        /// went away without closing its socket, or a statement stuck behind a restart).
        var statement: Int64 = 30
    }

    /// Connects to the server at `address` and migrates its database.
    init(
        address: HistoryLocation.PostgresAddress, connections: Int = HistoryStore.defaultConnections, deadlines: Deadlines = Deadlines(),
        logger: Logger? = nil
    ) throws {
        self.address = address
        self.deadlines = deadlines
        location = address.description
        self.logger = logger ?? Logger(label: "opep.history.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        slots = DispatchSemaphore(value: max(1, connections))
        try migrate()
    }

    deinit {
        for connection in idle.withLockedValue({ $0 }) { Self.close(connection) }
    }

    /// Closes a connection, keeping it until it is closed (PostgresNIO wants it closed before it goes).
    private static func close(_ connection: PostgresConnection) {
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    func read<T>(_ work: (any SQLConnection) throws -> T) throws -> T {
        try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", work)
    }

    @discardableResult
    func write<T>(_ work: (any SQLConnection) throws -> T) throws -> T {
        try transaction("BEGIN", work)
    }

    func appliedMigrations() throws -> [String] {
        try read { db in try db.rows("SELECT name FROM opep_migrations ORDER BY applied_order", []).map { try $0.get("name") } }
    }

    private func transaction<T>(_ begin: String, _ work: (any SQLConnection) throws -> T) throws -> T {
        try withConnection { connection, spoiled in
            let db = PostgresSQLConnection(
                connection: connection, logger: logger, location: location, statementDeadline: deadlines.statement, spoiled: spoiled)
            try db.execute(begin, [])
            do {
                let result = try work(db)
                try db.execute("COMMIT", [])
                return result
            } catch {
                if !connection.isClosed { _ = try? db.execute("ROLLBACK", []) }
                throw error
            }
        }
    }

    /// Runs `work` on an idle or new connection, kept for the next call unless it was closed or
    /// `work` marked it spoiled (a statement past its deadline: whatever it does later is not trusted).
    private func withConnection<T>(_ work: (PostgresConnection, NIOLockedValueBox<Bool>) throws -> T) throws -> T {
        slots.wait()
        defer { slots.signal() }
        let connection = try takeIdle() ?? connect()
        let spoiled = NIOLockedValueBox(false)
        defer {
            if connection.isClosed || spoiled.withLockedValue({ $0 }) {
                Self.close(connection)
            } else {
                idle.withLockedValue { $0.append(connection) }
            }
        }
        return try work(connection, spoiled)
    }

    /// An idle connection that is still open; closed ones (the server restarted meanwhile) are dropped.
    private func takeIdle() -> PostgresConnection? {
        while let connection = idle.withLockedValue({ $0.popLast() }) {
            if !connection.isClosed { return connection }
            Self.close(connection)
        }
        return nil
    }

    /// How much longer than the connect deadline PostgresNIO's own connect timeout is, in seconds.
    private static let connectTimeoutMargin: Int64 = 1

    private func connect() throws -> PostgresConnection {
        var configuration = PostgresConnection.Configuration(
            host: address.host, port: address.port, username: address.user, password: address.password,
            database: address.database, tls: .disable)
        // A second beyond the deadline below, so that the deadline always ends a slow connection
        // first and names itself (two equal timers fired in either order under load).
        configuration.options.connectTimeout = .seconds(deadlines.connect + Self.connectTimeoutMargin)
        let id = nextID.withLockedValue { value in
            value += 1
            return value
        }
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        let connecting = PostgresConnection.connect(on: loop, configuration: configuration, id: id, logger: logger)
        let opened = loop.makePromise(of: PostgresConnection.self)
        let settled = NIOLockedValueBox(false)
        let settle: @Sendable () -> Bool = { settled.withLockedValue { done in defer { done = true }; return !done } }
        let late = loop.scheduleTask(in: .seconds(deadlines.connect)) { [location, deadlines] in
            guard settle() else { return }
            opened.fail(HistoryUnavailable(location: location, reason: "the server did not open a connection within \(deadlines.connect) s"))
        }
        connecting.whenComplete { result in
            late.cancel()
            guard settle() else {
                if case .success(let connection) = result { Self.close(connection) }
                return
            }
            opened.completeWith(result)
        }
        do {
            return try opened.futureResult.wait()
        } catch let error as HistoryUnavailable {
            throw error
        } catch {
            throw HistoryUnavailable(location: location, reason: "cannot connect: \(PostgresSQLConnection.reason(error))")
        }
    }

    private func migrate() throws {
        do {
            try write { db in
                try db.execute("SELECT pg_advisory_xact_lock(?)", [Self.migrationLock])
                try db.execute(
                    """
                    CREATE TABLE IF NOT EXISTS opep_migrations (
                        name text PRIMARY KEY, applied_order integer NOT NULL, applied_at double precision NOT NULL)
                    """, [])
                let applied = Set(try db.rows("SELECT name FROM opep_migrations", []).map { try $0.get("name") as String })
                for (order, migration) in Self.migrations.enumerated() where !applied.contains(migration.name) {
                    for statement in migration.statements { try db.execute(statement, []) }
                    try db.execute(
                        "INSERT INTO opep_migrations (name, applied_order, applied_at) VALUES (?, ?, ?)",
                        [migration.name, order + 1, Date().timeIntervalSince1970])
                }
            }
        } catch let error as HistoryError {
            throw error
        } catch let error as HistoryUnavailable {
            throw error
        } catch {
            throw HistoryError("\(location): cannot bring the history's tables up to date (\(error))")
        }
    }

    /// The advisory lock that migrations hold ("opep" in ASCII).
    static let migrationLock: Int64 = 0x6F_70_65_70

    /// Every migration ever shipped, in order. Never edit one: add the next. The first creates
    /// the tables as SQLite's six migrations left them.
    static let migrations: [(name: String, statements: [String])] = [
        (
            "v1-sessions",
            [
                """
                CREATE TABLE plan (
                    id integer PRIMARY KEY CHECK (id = 1), json text NOT NULL, updated_at double precision NOT NULL)
                """,
                """
                CREATE TABLE sessions (
                    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                    started_at double precision NOT NULL,
                    ended_at double precision,
                    duration_s double precision NOT NULL DEFAULT 0,
                    source text NOT NULL CHECK (source IN ('browser', 'monitor', 'file', 'imported')),
                    status text NOT NULL CHECK (status IN ('recording', 'complete', 'interrupted')),
                    plan_json text NOT NULL,
                    configuration_json text NOT NULL,
                    input text NOT NULL,
                    frame_interval_s double precision NOT NULL,
                    latency_s double precision NOT NULL,
                    summary_json text,
                    breath_count bigint NOT NULL DEFAULT 0,
                    set_count bigint NOT NULL DEFAULT 0,
                    mean_pressure_cmh2o double precision,
                    share_in_target double precision,
                    exhalation_time_s double precision NOT NULL DEFAULT 0,
                    warnings_json text NOT NULL DEFAULT '[]',
                    audio_path text,
                    import_key text UNIQUE)
                """,
                "CREATE INDEX sessions_on_started_at ON sessions (started_at)",
                """
                CREATE TABLE breaths (
                    session_id bigint NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                    "index" bigint NOT NULL,
                    "set" bigint NOT NULL,
                    start_s double precision NOT NULL,
                    end_s double precision NOT NULL,
                    duration_s double precision NOT NULL,
                    mean_pressure_cmh2o double precision,
                    min_pressure_cmh2o double precision,
                    max_pressure_cmh2o double precision,
                    mean_pitch_hz double precision,
                    share_in_target double precision,
                    flutter_share double precision NOT NULL,
                    unmeasured text,
                    signal text,
                    PRIMARY KEY (session_id, "index"))
                """,
                """
                CREATE TABLE sets (
                    session_id bigint NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                    "index" bigint NOT NULL,
                    start_s double precision NOT NULL,
                    end_s double precision NOT NULL,
                    breaths bigint NOT NULL,
                    huff_coughs bigint NOT NULL,
                    mean_pressure_cmh2o double precision,
                    share_in_target double precision,
                    PRIMARY KEY (session_id, "index"))
                """,
                """
                CREATE TABLE events (
                    session_id bigint NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                    seq bigint NOT NULL,
                    type text NOT NULL,
                    time_s double precision NOT NULL,
                    duration_s double precision,
                    breath bigint,
                    "set" bigint,
                    breath_in_set bigint,
                    PRIMARY KEY (session_id, seq))
                """,
                """
                CREATE TABLE frames (
                    session_id bigint NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                    t double precision NOT NULL,
                    pitch_hz double precision,
                    pressure_cmh2o double precision,
                    exhaling boolean NOT NULL,
                    confidence double precision NOT NULL,
                    level_db double precision NOT NULL,
                    signal text,
                    PRIMARY KEY (session_id, t))
                """,
            ]
        ),
        // When a session being recorded was last saved, as SQLite's v7-saved-at.
        ("v2-saved-at", ["ALTER TABLE sessions ADD COLUMN saved_at double precision"]),
        // Clinicians and their patients, as SQLite's v8-clinicians-and-patients.
        (
            "v3-clinicians-and-patients",
            [
                """
                CREATE TABLE clinicians (
                    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                    username text NOT NULL UNIQUE,
                    name text NOT NULL,
                    password_hash text NOT NULL,
                    created_at double precision NOT NULL)
                """,
                """
                CREATE TABLE patients (
                    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                    clinician_id bigint NOT NULL REFERENCES clinicians (id),
                    name text NOT NULL,
                    plan_json text NOT NULL,
                    token_hash text NOT NULL UNIQUE,
                    created_at double precision NOT NULL)
                """,
                "CREATE INDEX patients_on_clinician_id ON patients (clinician_id)",
                "ALTER TABLE sessions ADD COLUMN patient_id bigint REFERENCES patients (id)",
                "CREATE INDEX sessions_on_patient_id ON sessions (patient_id, started_at)",
            ]
        ),
        // Clinicians signed in, as SQLite's v9-clinician-sign-ins.
        (
            "v4-clinician-sign-ins",
            [
                """
                CREATE TABLE clinician_sign_ins (
                    token_hash text PRIMARY KEY,
                    clinician_id bigint NOT NULL REFERENCES clinicians (id) ON DELETE CASCADE,
                    created_at double precision NOT NULL,
                    expires_at double precision NOT NULL)
                """,
                "CREATE INDEX clinician_sign_ins_on_clinician_id ON clinician_sign_ins (clinician_id)",
            ]
        ),
        // Patients whose therapy has ended, as SQLite's v10-archived-patients.
        ("v5-archived-patients", ["ALTER TABLE patients ADD COLUMN archived_at double precision"]),
    ]
}

/// One PostgreSQL connection as the history's queries use it: `?` becomes `$1`, `$2`, ...
private struct PostgresSQLConnection: SQLConnection {
    let connection: PostgresConnection
    let logger: Logger
    let location: String
    let statementDeadline: Int64
    /// Set when a statement missed its deadline: the connection is closed and not used again.
    let spoiled: NIOLockedValueBox<Bool>

    @discardableResult
    func execute(_ sql: String, _ arguments: [any SQLArgument]) throws -> Int {
        let result = try run(sql, arguments)
        return result.metadata.rows ?? 0
    }

    func rows(_ sql: String, _ arguments: [any SQLArgument]) throws -> [SQLRow] {
        let result = try run(sql, arguments)
        var columns: SQLRow.Columns?
        return try result.rows.map { row in
            let cells = Array(row)
            let names = columns ?? SQLRow.Columns(cells.map(\.columnName))
            columns = names
            return SQLRow(columns: names, values: try cells.map(Self.value))
        }
    }

    private func run(_ sql: String, _ arguments: [any SQLArgument]) throws -> PostgresQueryResult {
        var binds = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument.sqlValue {
            case .null: binds.appendNull()
            case .integer(let value): binds.append(value)
            case .real(let value): binds.append(value)
            case .text(let value): binds.append(value)
            case .boolean(let value): binds.append(value)
            }
        }
        // The answer, or the deadline's failure, whichever comes first: the caller is freed at the
        // deadline even if the connection never completes the query.
        let answered = connection.query(PostgresQuery(unsafeSQL: Self.numbered(sql), binds: binds), logger: logger)
        let outcome = connection.eventLoop.makePromise(of: PostgresQueryResult.self)
        let settled = NIOLockedValueBox(false)
        let settle: @Sendable () -> Bool = { settled.withLockedValue { done in defer { done = true }; return !done } }
        let overdue = HistoryUnavailable(location: location, reason: "no answer within \(statementDeadline) s; the connection was closed")
        let deadline = connection.eventLoop.scheduleTask(in: .seconds(statementDeadline)) { [connection, spoiled, logger] in
            guard settle() else { return }
            spoiled.withLockedValue { $0 = true }
            logger.warning("a statement went unanswered past its deadline; closing its connection", metadata: ["connection": "\(connection.id)"])
            outcome.fail(overdue)
            connection.close().whenComplete { _ in }
        }
        answered.whenComplete { result in
            deadline.cancel()
            if settle() { outcome.completeWith(result) }
        }
        do {
            return try outcome.futureResult.wait()
        } catch let error as HistoryUnavailable {
            throw error
        } catch {
            if connection.isClosed || Self.isConnectionFault(error) {
                throw HistoryUnavailable(location: location, reason: Self.reason(error))
            }
            throw HistoryError("\(location): \(Self.reason(error))")
        }
    }

    /// `sql` with each `?` outside quotes numbered as PostgreSQL's `$n`.
    static func numbered(_ sql: String) -> String {
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        var quote: Character?
        var number = 0
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                result.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                result.append(character)
            } else if character == "?" {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }

    private static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .float4, .float8: return .real(try cell.decode(Double.self))
        case .bool: return .boolean(try cell.decode(Bool.self))
        default: return .text(try cell.decode(String.self))
        }
    }

    /// Whether the error is the connection's, not the statement's: the server went away, or is
    /// shutting down (SQLSTATE class 57: operator intervention, 08: connection exception).
    static func isConnectionFault(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown: return true
        default:
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("57") || state.hasPrefix("08")
        }
    }

    /// What went wrong, in one line: the server's message, or the connection's fault.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return message + state
        }
        switch error.code {
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown: return "the connection was closed (\(error.code))"
        default: break
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
