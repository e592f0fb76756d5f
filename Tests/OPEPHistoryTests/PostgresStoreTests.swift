import Foundation
import NIOPosix
import TestTools
import XCTest

@testable import OPEPHistory

/// What only the PostgreSQL store has: its own named migrations, a server to reach.
final class PostgresStoreTests: XCTestCase {
    private func freshDatabase() throws -> HistoryLocation.PostgresAddress {
        guard let address = try TestPostgres.freshDatabase(for: self) else {
            throw missingTool("no PostgreSQL server for the store tests (\(TestPostgres.variable))")
        }
        return address
    }

    func testMigrationsAreNamedAndReopeningKeepsData() throws {
        let address = try freshDatabase()
        let store = try HistoryStore(postgres: address)
        XCTAssertEqual(try store.appliedMigrations(), ["v1-sessions", "v2-saved-at", "v3-clinicians-and-patients", "v4-clinician-sign-ins", "v5-archived-patients"])
        XCTAssertEqual(store.location, address.description)
        XCTAssertNil(store.path)
        let imported = try store.importSession(ImportTests.document, defaultStart: Date())
        let reopened = try HistoryStore(location: .postgres(address))
        XCTAssertEqual(try reopened.appliedMigrations(), ["v1-sessions", "v2-saved-at", "v3-clinicians-and-patients", "v4-clinician-sign-ins", "v5-archived-patients"])
        XCTAssertEqual(try reopened.sessions().map(\.id), [imported.id])
    }

    /// Two servers starting at once on a new database create its tables once.
    func testStoresOpeningAtOnceMigrateOnce() throws {
        let address = try freshDatabase()
        let errors = Collected<String>()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                _ = try HistoryStore(postgres: address)
            } catch {
                errors.add("\(error)")
            }
        }
        XCTAssertEqual(errors.all, [])
        XCTAssertEqual(try HistoryStore(postgres: address).appliedMigrations(), ["v1-sessions", "v2-saved-at", "v3-clinicians-and-patients", "v4-clinician-sign-ins", "v5-archived-patients"])
    }

    /// A server that refuses the connection is one line naming it, without its password.
    func testARefusedConnectionIsOneLineNamingTheServer() throws {
        let port = try unusedPort()
        let address = HistoryLocation.PostgresAddress(user: "opep", password: "secret", host: "127.0.0.1", port: port, database: "clinic")
        XCTAssertThrowsError(try HistoryStore(postgres: address)) { error in
            XCTAssertTrue(error is HistoryUnavailable, "\(type(of: error))")
            let line = "\(error)"
            XCTAssertTrue(line.hasPrefix("postgres://opep@127.0.0.1:\(port)/clinic: cannot reach the history's database (cannot connect"), line)
            XCTAssertFalse(line.contains("secret"), line)
            XCTAssertFalse(line.contains("\n"), line)
        }
    }

    /// A server that accepts the connection and never answers fails the call within the connect
    /// deadline, as unavailable, instead of hanging its caller.
    func testAServerThatNeverAnswersFailsWithinTheDeadline() throws {
        let silent = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).wait()
        defer { try? silent.close().wait() }
        let port = try XCTUnwrap(silent.localAddress?.port)
        let address = HistoryLocation.PostgresAddress(user: "opep", password: nil, host: "127.0.0.1", port: port, database: "clinic")
        let began = Date()
        XCTAssertThrowsError(try PostgresHistoryDatabase(address: address, deadlines: .init(connect: 1, statement: 1))) { error in
            XCTAssertTrue(error is HistoryUnavailable, "\(type(of: error)): \(error)")
            XCTAssertTrue("\(error)".contains("did not open a connection within 1 s"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(began), 5)
    }

    /// A statement left unanswered past its deadline closes its connection and fails as
    /// unavailable; the next call opens a new connection and works.
    func testAStatementPastItsDeadlineClosesItsConnection() throws {
        let address = try freshDatabase()
        let database = try PostgresHistoryDatabase(address: address, connections: 1, deadlines: .init(connect: 5, statement: 1))
        let began = Date()
        XCTAssertThrowsError(try database.read { db in try db.execute("SELECT pg_sleep(4)", []) }) { error in
            XCTAssertTrue(error is HistoryUnavailable, "\(type(of: error)): \(error)")
            XCTAssertTrue("\(error)".contains("no answer within 1 s"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(began), 3)
        XCTAssertEqual(try database.read { db in try db.rows("SELECT 1 AS one", []).map { try $0.get("one") as Int64 } }, [1])
    }

    /// A loopback port nothing listens on (bound, then released).
    private func unusedPort() throws -> Int {
        let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).wait()
        let port = try XCTUnwrap(channel.localAddress?.port)
        try channel.close().wait()
        return port
    }
}
