import Foundation
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

/// The history's database server cannot be reached (down, restarting, the network between):
/// nothing was saved or read, and the same call may succeed later, once it is back.
public struct HistoryUnavailable: Error, CustomStringConvertible, Sendable {
    /// The server, without its password.
    public var location: String
    /// What failed, in a few words.
    public var reason: String
    public init(location: String, reason: String) {
        self.location = location
        self.reason = reason
    }
    public var description: String { "\(location): cannot reach the history's database (\(reason))" }
}

/// The therapy history: the plan (one row), every session with its summary, breaths, sets,
/// events and final frames decimated to 20 per second (imported sessions have no frames).
///
/// Its queries are written once against ``HistoryDatabase``; the data lives in a SQLite file
/// (``SQLiteHistoryDatabase``, WAL, so the server's pages read while sessions write) or, in
/// tests, in memory.
public final class HistoryStore: Sendable {
    let database: any HistoryDatabase
    /// The database file, or nil in memory.
    public let path: String?

    /// Connections a history on a PostgreSQL server keeps open at most, unless told (4).
    public static let defaultConnections = 4

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
        database = try SQLiteHistoryDatabase(path: path)
        self.path = path
    }

    /// A history in memory, for tests.
    public init() throws {
        database = try SQLiteHistoryDatabase()
        path = nil
    }

    /// The history in a PostgreSQL server's database, its tables created or brought up to date;
    /// at most `connections` connections open at once.
    public init(postgres address: HistoryLocation.PostgresAddress, connections: Int = defaultConnections) throws {
        database = try PostgresHistoryDatabase(address: address, connections: connections)
        path = nil
    }

    /// A history in `database` (a test's stand-in).
    init(database: any HistoryDatabase) {
        self.database = database
        path = nil
    }

    /// The history where `location` says: a SQLite file (created if needed) or a PostgreSQL
    /// server's database, with at most `connections` connections open at once.
    public convenience init(location: HistoryLocation, connections: Int = defaultConnections) throws {
        switch location {
        case .sqlite(let path): try self.init(path: path)
        case .postgres(let address): try self.init(postgres: address, connections: connections)
        }
    }

    /// Where the history lives, for messages: the file's path, "memory", or the server's URL
    /// without its password.
    public var location: String { database.location }

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
        try database.appliedMigrations()
    }

    // MARK: The plan

    /// The saved plan, or the standard one when none was saved.
    public func plan() throws -> TherapyPlan {
        let json: String? = try database.read { db in try db.row("SELECT json FROM plan WHERE id = 1", [])?.get("json") }
        guard let json else { return .standard }
        return try JSONDecoder().decode(TherapyPlan.self, from: Data(json.utf8))
    }

    /// Validates and saves the plan.
    public func savePlan(_ plan: TherapyPlan) throws {
        try plan.validate()
        let json = try Self.json(plan)
        try database.write { db in
            try db.execute(
                "INSERT INTO plan (id, json, updated_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET json = excluded.json, updated_at = excluded.updated_at",
                [json, Date().timeIntervalSince1970])
        }
    }

    /// Deletes a session with everything recorded for it; false when there was none.
    @discardableResult
    public func deleteSession(_ id: Int64) throws -> Bool {
        try database.write { db in try db.execute("DELETE FROM sessions WHERE id = ?", [id]) > 0 }
    }

    static func json<T: Encodable>(_ value: T) throws -> String {
        try reportJSON(value, keys: .asCoded, pretty: false)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }
}
