import Foundation
import TestTools
import XCTest

/// Sessions saved by `opep monitor` come back through `opep history` and `opep report`.
final class HistoryReportTests: XCTestCase {
    func testMonitorSavesASessionThatHistoryAndReportsShow() throws {
        let directory = try TemporaryDirectory()
        try monitorHistoryAndReports(database: directory.path("history.sqlite"), in: directory)
    }

    /// The same on a PostgreSQL server (a fresh database on the test server).
    func testTheSameOnAPostgreSQLServer() throws {
        let directory = try TemporaryDirectory()
        try monitorHistoryAndReports(database: try freshPostgresDatabase(), in: directory)
    }

    private func monitorHistoryAndReports(database: String, in directory: TemporaryDirectory) throws {
        let session = try simulateSession(in: directory)

        let monitor = try run(["monitor", session.wav, "--database", database])
        XCTAssertEqual(monitor.status, 0, monitor.stderr)
        XCTAssertTrue(monitor.stdout.contains("Saved as session 1"), monitor.stdout)
        let counted = (1...5).filter { monitor.stdout.contains("breath \($0)/") }
        XCTAssertEqual(counted, Array(1...session.truth.breaths.count), "the gauge shows each breath's number in its set")

        let list = try run(["history", "--database", database])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertTrue(list.stdout.contains("monitor"), list.stdout)

        let exported = try run(["history", "export", "1", "--format", "json", "--database", database])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        let analysis = try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any]
        let breaths = try XCTUnwrap(analysis?["breaths"] as? [[String: Any]])
        XCTAssertEqual(breaths.count, session.truth.breaths.count)

        let report = directory.path("session.html")
        let fromHistory = try run(["report", "--session", "1", "--database", database, "-o", report])
        XCTAssertEqual(fromHistory.status, 0, fromHistory.stderr)
        let html = try String(contentsOfFile: report, encoding: .utf8)
        XCTAssertEqual(html.components(separatedBy: "<tr class=\"breath\"").count - 1, session.truth.breaths.count)
        XCTAssertFalse(html.contains("http://") || html.contains("https://"))

        let today = ISO8601DateFormatter.string(from: Date(), timeZone: .current, formatOptions: [.withFullDate])
        let adherence = directory.path("adherence.html")
        let overDays = try run(["report", "--from", today, "--to", today, "--database", database, "-o", adherence])
        XCTAssertEqual(overDays.status, 0, overDays.stderr)
        let document = try String(contentsOfFile: adherence, encoding: .utf8)
        XCTAssertTrue(document.contains("1 of 2 planned"), "one session against a plan of two a day")
        XCTAssertEqual(document.components(separatedBy: "<svg class=\"chart\"").count - 1, 4, "four charts")
    }

    /// The history an earlier release wrote (Tests/OPEPHistoryTests/Fixtures, see FrozenHistoryTests)
    /// lists, shows, exports and reports every session.
    func testAHistoryFromAnEarlierReleaseReports() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("history.sqlite")
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("OPEPHistoryTests/Fixtures/history-76aba40.sqlite")
        try FileManager.default.copyItem(at: fixture, to: URL(fileURLWithPath: database))
        let list = try run(["history", "--database", database])
        XCTAssertEqual(list.status, 0, list.stderr)
        for (id, breaths) in [(1, 6), (2, 3)] {
            let shown = try run(["history", "show", "\(id)", "--database", database])
            XCTAssertEqual(shown.status, 0, shown.stderr)
            XCTAssertTrue(shown.stdout.contains("\(breaths) breaths"), shown.stdout)
            let exported = try run(["history", "export", "\(id)", "--format", "json", "--database", database])
            XCTAssertEqual(exported.status, 0, exported.stderr)
            let report = directory.path("session-\(id).html")
            let reported = try run(["report", "--session", "\(id)", "--database", database, "-o", report])
            XCTAssertEqual(reported.status, 0, reported.stderr)
            let html = try String(contentsOfFile: report, encoding: .utf8)
            XCTAssertEqual(html.components(separatedBy: "<tr class=\"breath\"").count - 1, breaths)
        }
    }

    func testReportsFromTheHistoryExplainWhatIsMissing() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("none.sqlite")
        let noHistory = try run(["report", "--session", "1", "--database", database, "-o", directory.path("r.html")])
        XCTAssertNotEqual(noHistory.status, 0)
        XCTAssertEqual(nonEmptyLines(noHistory.stderr), ["opep: error: \(database): no history there yet"])

        let session = try simulateSession(in: directory)
        let saved = directory.path("history.sqlite")
        XCTAssertEqual(try run(["monitor", session.wav, "--database", saved]).status, 0)
        let unknown = try run(["report", "--session", "7", "--database", saved, "-o", directory.path("r.html")])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertEqual(nonEmptyLines(unknown.stderr), ["opep: error: history: no session 7 (see `opep history`)"])

        let both = try run(["report", session.wav, "--session", "1", "-o", directory.path("r.html")])
        XCTAssertNotEqual(both.status, 0)
        XCTAssertTrue(both.stderr.contains("Give one of"), both.stderr)
        let halfRange = try run(["report", "--from", "2026-11-01", "-o", directory.path("r.html")])
        XCTAssertNotEqual(halfRange.status, 0)
        XCTAssertTrue(halfRange.stderr.contains("needs both --from and --to"), halfRange.stderr)
    }

    /// A PostgreSQL server's URL is read as one, not as a file's path: a server that cannot be
    /// reached is one line naming it (without its password), and no folder named `postgres:` is
    /// made; a URL that lacks a part names it.
    func testAServersURLIsNotTakenForAPath() throws {
        let directory = try TemporaryDirectory()
        let url = "postgres://postgres:secret@127.0.0.1:1/opep"
        for arguments in [["history"], ["report", "--session", "1", "-o", directory.path("r.html")], ["serve", "--port", "0"]] {
            let result = try run(arguments + ["--database", url])
            XCTAssertNotEqual(result.status, 0, "\(arguments)")
            let lines = nonEmptyLines(result.stderr)
            XCTAssertEqual(lines.count, 1, result.stderr)
            XCTAssertTrue(lines[0].hasPrefix("opep: error: postgres://postgres@127.0.0.1:1/opep: cannot reach the history's database (cannot connect"), result.stderr)
            XCTAssertFalse(result.stderr.contains("secret"))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "postgres:"), "no folder made from the URL")
        let incomplete = try run(["history", "--database", "postgresql://127.0.0.1/opep"])
        XCTAssertNotEqual(incomplete.status, 0)
        XCTAssertTrue(
            incomplete.stderr.contains("--database postgresql://127.0.0.1/opep: no user (postgres://USER@HOST/DATABASE, or PGUSER)"),
            incomplete.stderr)
    }

    /// A new, empty database on the test server (`OPEP_TEST_POSTGRES_URL`, which `.ci/run` sets),
    /// dropped when the test ends; its URL.
    private func freshPostgresDatabase() throws -> String {
        guard let server = ProcessInfo.processInfo.environment["OPEP_TEST_POSTGRES_URL"], !server.isEmpty,
            let slash = server.lastIndex(of: "/")
        else { throw missingTool("no PostgreSQL server (OPEP_TEST_POSTGRES_URL)") }
        let name = "opep_tool_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try tool("psql", [server, "-v", "ON_ERROR_STOP=1", "-qc", "CREATE DATABASE \(name)"])
        addTeardownBlock { _ = try? tool("psql", [server, "-qc", "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"]) }
        return server[...slash] + name
    }
}
