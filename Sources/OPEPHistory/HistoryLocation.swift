import Foundation

/// Where a history lives, from what `--database` was given: a SQLite file's path, or a
/// PostgreSQL server's URL (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, also
/// `postgresql://`), whose missing parts come from libpq's `PGUSER`, `PGPASSWORD`, `PGHOST`,
/// `PGPORT` and `PGDATABASE`, as `psql` reads them.
public enum HistoryLocation: Sendable, Equatable {
    case sqlite(path: String)
    case postgres(PostgresAddress)

    /// A PostgreSQL server and database, every part known.
    public struct PostgresAddress: Sendable, Equatable, CustomStringConvertible {
        public var user: String
        public var password: String?
        public var host: String
        public var port: Int
        public var database: String

        /// PostgreSQL's own port.
        public static let defaultPort = 5432

        /// The URL without its password, for messages and logs.
        public var description: String { "postgres://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)" }
    }

    /// Why a `--database` value cannot be read; its description is one line naming the part.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var value: String
        public var reason: String
        public var description: String { "--database \(value): \(reason)" }
    }

    /// Reads `value` (nil: the default SQLite file); a value starting with `postgres://` or
    /// `postgresql://` is a server's URL, anything else a file's path.
    public init(_ value: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(Problem) {
        guard let value else {
            self = .sqlite(path: HistoryStore.defaultPath(environment: environment))
            return
        }
        let lowered = value.lowercased()
        guard lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") else {
            if value.isEmpty { throw Problem(value: "\"\"", reason: "an empty path") }
            self = .sqlite(path: value)
            return
        }
        self = .postgres(try Self.address(value, environment: environment))
    }

    private static func address(_ value: String, environment: [String: String]) throws(Problem) -> PostgresAddress {
        let shown = Self.withoutPassword(value)
        func problem(_ reason: String) -> Problem { Problem(value: shown, reason: reason) }
        guard let parts = URLComponents(string: value) else { throw problem("not a URL (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE)") }
        if let query = parts.percentEncodedQuery, !query.isEmpty { throw problem("options after \"?\" are not read (\(query))") }
        if let fragment = parts.fragment, !fragment.isEmpty { throw problem("nothing may follow \"#\"") }
        func given(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }
        guard let user = given(parts.user) ?? given(environment["PGUSER"]) else {
            throw problem("no user (postgres://USER@HOST/DATABASE, or PGUSER)")
        }
        guard var host = given(parts.host) ?? given(environment["PGHOST"]) else {
            throw problem("no host (postgres://USER@HOST/DATABASE, or PGHOST)")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port: Int
        if let number = parts.port {
            port = number
        } else if let text = given(environment["PGPORT"]) {
            guard let number = Int(text) else { throw problem("PGPORT \(text) is not a port number") }
            port = number
        } else {
            port = PostgresAddress.defaultPort
        }
        guard (1...65535).contains(port) else { throw problem("port \(port) is not between 1 and 65535") }
        let path = parts.path.hasPrefix("/") ? String(parts.path.dropFirst()) : parts.path
        if path.contains("/") { throw problem("the database is one name, not a path (\(path))") }
        guard let database = given(path) ?? given(environment["PGDATABASE"]) else {
            throw problem("no database (postgres://USER@HOST/DATABASE, or PGDATABASE)")
        }
        return PostgresAddress(
            user: user, password: given(parts.password) ?? given(environment["PGPASSWORD"]), host: host, port: port,
            database: database)
    }

    /// `value` with the password between `:` and `@` of its authority replaced by `***`.
    private static func withoutPassword(_ value: String) -> String {
        guard let scheme = value.range(of: "://") else { return value }
        let rest = value[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@"),
            let colon = rest[..<at].firstIndex(of: ":")
        else { return value }
        return String(value[..<rest.index(after: colon)]) + "***" + String(value[at...])
    }
}
