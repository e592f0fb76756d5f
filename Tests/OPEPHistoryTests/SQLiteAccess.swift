import GRDB

@testable import OPEPHistory

extension HistoryStore {
    /// The SQLite database under a store that keeps its history in a file or in memory, for tests
    /// that write rows as an earlier release did.
    var writer: any DatabaseWriter {
        get throws {
            guard let sqlite = database as? SQLiteHistoryDatabase else { throw HistoryError("not a SQLite history") }
            return sqlite.writer
        }
    }
}
