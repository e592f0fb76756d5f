import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import OPEPKit
import XCTest

@testable import OPEPHistory
@testable import OPEPServer

/// A history's database server that goes down and comes back: the API answers 503 with
/// `Retry-After` meanwhile, logs the outage once, and works again when it is back.
final class OutageTests: XCTestCase {
    /// A database in memory that can be switched off, as a PostgreSQL server that stops.
    final class SwitchableDatabase: HistoryDatabase, @unchecked Sendable {
        let inner: SQLiteHistoryDatabase
        private let lock = NSLock()
        private var isDown = false
        init() throws { inner = try SQLiteHistoryDatabase() }
        var location: String { "postgres://test@127.0.0.1:1/clinic" }
        var down: Bool {
            get { lock.withLock { isDown } }
            set { lock.withLock { isDown = newValue } }
        }
        private func check() throws {
            if down { throw HistoryUnavailable(location: location, reason: "connection refused") }
        }
        func read<T>(_ work: (any SQLConnection) throws -> T) throws -> T {
            try check()
            return try inner.read(work)
        }
        func write<T>(_ work: (any SQLConnection) throws -> T) throws -> T {
            try check()
            return try inner.write(work)
        }
        func appliedMigrations() throws -> [String] { try inner.appliedMigrations() }
    }

    /// Log lines at notice and above.
    final class Lines: LogHandler, @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        var all: [String] { lock.withLock { lines } }
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .notice
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { lock.withLock { lines.append("\(event.level): \(event.message)") } }
    }

    func testTheAPIAnswers503WhileTheDatabaseIsDownAndWorksWhenItIsBack() async throws {
        let database = try SwitchableDatabase()
        let store = HistoryStore(database: database)
        let lines = Lines()
        let logger = Logger(label: "test") { _ in lines }
        let document = try ImportRouteTests.document()
        let body = try reportJSON(document, pretty: false)
        try await buildApplication(ServerConfiguration(port: 0), store: store, logger: logger).test(.router) { client in
            try await client.execute(uri: "/api/sessions", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
            }
            database.down = true
            for _ in 0..<3 {
                try await client.execute(uri: "/api/sessions", method: .get) { response in
                    XCTAssertEqual(response.status, .serviceUnavailable)
                    XCTAssertEqual(response.headers[.retryAfter], "5")
                    XCTAssertEqual(response.headers[.contentType], "application/json; charset=utf-8")
                    XCTAssertEqual(
                        try json(response.body)["error"] as? String,
                        "the history's database cannot be reached just now; try again in a moment")
                }
            }
            try await client.execute(uri: "/api/sessions", method: .post, body: ByteBuffer(string: body)) { response in
                XCTAssertEqual(response.status, .serviceUnavailable, "nothing saved: the phone keeps the session and sends it again")
            }
            try await client.execute(uri: "/", method: .get) { response in
                XCTAssertEqual(response.status, .ok, "the page itself needs no database")
            }
            database.down = false
            try await client.execute(uri: "/api/sessions", method: .post, body: ByteBuffer(string: body)) { response in
                XCTAssertEqual(response.status, .created)
            }
            try await client.execute(uri: "/api/sessions", method: .post, body: ByteBuffer(string: body)) { response in
                XCTAssertEqual(response.status, .ok, "sent again: saved once")
            }
        }
        XCTAssertEqual(try store.sessions().count, 1)
        let outage = lines.all.filter { $0.contains("history's database") }
        XCTAssertEqual(outage, [
            "error: postgres://test@127.0.0.1:1/clinic: cannot reach the history's database (connection refused); answering 503 until it is back",
            "notice: the history's database is reachable again",
        ])
    }
}
