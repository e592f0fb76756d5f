import Foundation

/// What the history needs of a SQL database: transactions on one connection, statements with
/// `?` arguments, rows by column name. The history's queries are written once against it, in SQL
/// that SQLite and PostgreSQL both take (`INSERT ... ON CONFLICT ... DO UPDATE`, `RETURNING`,
/// quoted `"index"` and `"set"`); each database brings its own schema and named migrations.
protocol HistoryDatabase: Sendable {
    /// Where the data lives, for messages: a file's path, "memory", or a server without its password.
    var location: String { get }
    /// Runs `work` in a transaction that only reads.
    func read<T>(_ work: (any SQLConnection) throws -> T) throws -> T
    /// Runs `work` in a transaction, committed when it returns and rolled back when it throws.
    @discardableResult
    func write<T>(_ work: (any SQLConnection) throws -> T) throws -> T
    /// The names of the migrations applied, oldest first.
    func appliedMigrations() throws -> [String]
}

/// One connection within a transaction.
protocol SQLConnection {
    /// Runs a statement with `?` arguments; returns the number of rows it changed.
    @discardableResult
    func execute(_ sql: String, _ arguments: [any SQLArgument]) throws -> Int
    /// Runs a query with `?` arguments; returns its rows.
    func rows(_ sql: String, _ arguments: [any SQLArgument]) throws -> [SQLRow]
}

extension SQLConnection {
    /// The query's first row, if any.
    func row(_ sql: String, _ arguments: [any SQLArgument]) throws -> SQLRow? {
        try rows(sql, arguments).first
    }
}

/// A value stored in or read from a column, in the types both databases share.
enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case boolean(Bool)
}

/// A Swift value that binds to a statement's `?`.
protocol SQLArgument {
    var sqlValue: SQLValue { get }
}

extension Int64: SQLArgument { var sqlValue: SQLValue { .integer(self) } }
extension Int: SQLArgument { var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Double: SQLArgument { var sqlValue: SQLValue { .real(self) } }
extension String: SQLArgument { var sqlValue: SQLValue { .text(self) } }
extension Bool: SQLArgument { var sqlValue: SQLValue { .boolean(self) } }
extension SQLValue: SQLArgument { var sqlValue: SQLValue { self } }
extension Optional: SQLArgument where Wrapped: SQLArgument {
    var sqlValue: SQLValue { map(\.sqlValue) ?? .null }
}

/// A Swift value read from a column.
protocol SQLColumnValue {
    /// The value, or nil when the column's value is NULL or of another kind.
    init?(sqlValue: SQLValue)
}

extension Int64: SQLColumnValue {
    init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .integer(let value): self = value
        case .boolean(let value): self = value ? 1 : 0
        default: return nil
        }
    }
}

extension Int: SQLColumnValue {
    init?(sqlValue: SQLValue) {
        guard let value = Int64(sqlValue: sqlValue) else { return nil }
        self = Int(value)
    }
}

extension Double: SQLColumnValue {
    init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}

extension String: SQLColumnValue {
    init?(sqlValue: SQLValue) {
        guard case .text(let value) = sqlValue else { return nil }
        self = value
    }
}

extension Bool: SQLColumnValue {
    init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .boolean(let value): self = value
        case .integer(let value): self = value != 0
        default: return nil
        }
    }
}

/// One row of a query's result, its values by column name.
struct SQLRow: Sendable {
    /// The query's column names and their positions, shared by its rows.
    final class Columns: Sendable {
        let names: [String]
        let positions: [String: Int]
        init(_ names: [String]) {
            self.names = names
            positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    let columns: Columns
    let values: [SQLValue]

    /// The column's value; NULL when the row has no such column.
    subscript(_ name: String) -> SQLValue {
        columns.positions[name].map { values[$0] } ?? .null
    }

    /// The column's value, nil when it is NULL.
    func get<T: SQLColumnValue>(_ name: String) throws -> T? {
        let value = self[name]
        if value == .null { return nil }
        guard let typed = T(sqlValue: value) else { throw HistoryError("column \(name) holds \(value), not a \(T.self)") }
        return typed
    }

    /// The column's value, which must not be NULL.
    func get<T: SQLColumnValue>(_ name: String) throws -> T {
        guard let value: T = try get(name) else { throw HistoryError("column \(name) is empty; a \(T.self) was expected") }
        return value
    }
}
