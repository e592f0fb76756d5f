import Foundation
import Logging
import NIOPosix
import PostgresNIO
import TestTools
import XCTest

@testable import OPEPHistory

/// The PostgreSQL server the store tests also run against: `OPEP_TEST_POSTGRES_URL`, a URL whose
/// user may create databases (`.ci/run` starts a throwaway cluster and sets it).
enum TestPostgres {
    static let variable = "OPEP_TEST_POSTGRES_URL"

    /// The server's address, nil when the variable is not set.
    static func address() throws -> HistoryLocation.PostgresAddress? {
        guard let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty else { return nil }
        guard case .postgres(let address) = try HistoryLocation(url, environment: [:]) else {
            throw HistoryError("\(variable) must be a postgres:// URL")
        }
        return address
    }

    /// Runs one statement outside a transaction (CREATE and DROP DATABASE) on the server's database.
    static func administer(_ sql: String, on address: HistoryLocation.PostgresAddress) throws {
        let connection = try PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(),
            configuration: .init(
                host: address.host, port: address.port, username: address.user, password: address.password,
                database: address.database, tls: .disable),
            id: 0, logger: Logger(label: "opep.tests.postgres")
        ).wait()
        defer { try? connection.close().wait() }
        _ = try connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "opep.tests.postgres")).wait()
    }

    /// A new, empty database on the server for one test, dropped when the test ends.
    static func freshDatabase(for test: XCTestCase) throws -> HistoryLocation.PostgresAddress? {
        guard var address = try address() else { return nil }
        let name = "opep_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try administer("CREATE DATABASE \(name)", on: address)
        let server = address
        test.addTeardownBlock { try? administer("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", on: server) }
        address.database = name
        return address
    }
}

extension XCTestCase {
    /// Runs `body` on a new history in memory (SQLite), then on a new history in a fresh database
    /// on the test server (PostgreSQL). Without a server the PostgreSQL run is skipped, which
    /// fails the test in CI.
    func eachStore(_ body: (HistoryStore) throws -> Void) throws {
        try body(HistoryStore())
        guard let address = try TestPostgres.freshDatabase(for: self) else {
            throw missingTool("no PostgreSQL server for the store tests (\(TestPostgres.variable)); SQLite passed")
        }
        do {
            try body(HistoryStore(postgres: address))
        } catch {
            throw HistoryError("on PostgreSQL: \(error)")
        }
    }
}

/// Values gathered from several threads at once.
final class Collected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Value] = []
    func add(_ value: Value) { lock.withLock { values.append(value) } }
    var all: [Value] { lock.withLock { values } }
}
