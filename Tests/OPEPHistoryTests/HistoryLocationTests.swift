import XCTest
@testable import OPEPHistory

final class HistoryLocationTests: XCTestCase {
    private typealias Address = HistoryLocation.PostgresAddress

    private func location(_ value: String?, _ environment: [String: String] = ["HOME": "/home/pat"]) throws -> HistoryLocation {
        try HistoryLocation(value, environment: environment)
    }

    private func problem(_ value: String, _ environment: [String: String] = [:]) -> String? {
        do {
            _ = try HistoryLocation(value, environment: environment)
            return nil
        } catch {
            return error.description
        }
    }

    func testAPathIsASQLiteFile() throws {
        XCTAssertEqual(try location("history.sqlite"), .sqlite(path: "history.sqlite"))
        XCTAssertEqual(try location("/data/postgres/history.sqlite"), .sqlite(path: "/data/postgres/history.sqlite"))
        XCTAssertEqual(try location(nil), .sqlite(path: HistoryStore.defaultPath(environment: ["HOME": "/home/pat"])))
        XCTAssertEqual(problem(""), "--database \"\": an empty path")
    }

    func testAServersURLWithEveryPart() throws {
        XCTAssertEqual(
            try location("postgres://clinic:s%40cret@db.example.org:6543/opep"),
            .postgres(Address(user: "clinic", password: "s@cret", host: "db.example.org", port: 6543, database: "opep")))
        XCTAssertEqual(
            try location("postgresql://postgres@127.0.0.1/opep"),
            .postgres(Address(user: "postgres", password: nil, host: "127.0.0.1", port: 5432, database: "opep")))
        XCTAssertEqual(
            try location("POSTGRES://postgres@[::1]:5433/opep"),
            .postgres(Address(user: "postgres", password: nil, host: "::1", port: 5433, database: "opep")))
    }

    /// Missing parts come from libpq's environment variables, as psql reads them; the URL wins.
    func testMissingPartsComeFromTheEnvironment() throws {
        let environment = ["PGUSER": "clinic", "PGPASSWORD": "pw", "PGHOST": "10.0.0.5", "PGPORT": "5499", "PGDATABASE": "opep"]
        XCTAssertEqual(
            try location("postgres://", environment),
            .postgres(Address(user: "clinic", password: "pw", host: "10.0.0.5", port: 5499, database: "opep")))
        XCTAssertEqual(
            try location("postgres://physio@localhost/ward", environment),
            .postgres(Address(user: "physio", password: "pw", host: "localhost", port: 5499, database: "ward")))
        XCTAssertEqual(problem("postgres://", ["PGUSER": "u", "PGHOST": "h", "PGDATABASE": "d", "PGPORT": "x"]),
                       "--database postgres://: PGPORT x is not a port number")
    }

    /// One line naming the part that is missing or wrong; the password is never shown.
    func testEachProblemIsNamed() {
        XCTAssertEqual(problem("postgres://127.0.0.1/opep"), "--database postgres://127.0.0.1/opep: no user (postgres://USER@HOST/DATABASE, or PGUSER)")
        XCTAssertEqual(problem("postgres://u@/opep"), "--database postgres://u@/opep: no host (postgres://USER@HOST/DATABASE, or PGHOST)")
        XCTAssertEqual(problem("postgres://u@h"), "--database postgres://u@h: no database (postgres://USER@HOST/DATABASE, or PGDATABASE)")
        XCTAssertEqual(problem("postgres://u@h:99999/d"), "--database postgres://u@h:99999/d: port 99999 is not between 1 and 65535")
        XCTAssertEqual(problem("postgres://u@h/d/e"), "--database postgres://u@h/d/e: the database is one name, not a path (d/e)")
        XCTAssertEqual(problem("postgres://u:secret@h/d?sslmode=require"), "--database postgres://u:***@h/d?sslmode=require: options after \"?\" are not read (sslmode=require)")
        XCTAssertNotNil(problem("postgres://u@h:port/d"))
        XCTAssertFalse(problem("postgres://u:secret@h:port/d")?.contains("secret") ?? true)
        XCTAssertEqual(Address(user: "u", password: "secret", host: "h", port: 5432, database: "d").description, "postgres://u@h:5432/d")
    }
}
