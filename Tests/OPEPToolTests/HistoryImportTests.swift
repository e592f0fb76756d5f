import Foundation
import XCTest

/// `opep history import` saves sessions from their `opep analyze --format json` documents.
final class HistoryImportTests: XCTestCase {
    func testImportSavesGoodFilesOnceAndNamesTheBadOne() throws {
        let directory = try TemporaryDirectory()
        let session = try simulateSession(in: directory)
        let another = try simulateSession(in: directory, name: "another", seed: 2)
        let database = directory.path("history.sqlite")
        var documents: [String] = []
        for (name, wav) in [("first.json", session.wav), ("second.json", another.wav)] {
            let analysis = try run(["analyze", wav, "--format", "json"])
            XCTAssertEqual(analysis.status, 0, analysis.stderr)
            documents.append(try directory.write(analysis.stdout, to: name))
        }
        let reanalysed = try run(["analyze", session.wav, "--format", "json", "--target", "12-18"])
        let sameMeasurements = try directory.write(reanalysed.stdout, to: "first-other-target.json")
        let broken = try directory.write("{\"settings\": ", to: "broken.json")

        let imported = try run(["history", "import", documents[0], broken, documents[1], "--database", database])
        XCTAssertNotEqual(imported.status, 0)
        XCTAssertEqual(nonEmptyLines(imported.stdout), ["\(documents[0]): session 1", "\(documents[1]): session 2"])
        let errors = nonEmptyLines(imported.stderr)
        XCTAssertEqual(errors.count, 1, imported.stderr)
        XCTAssertTrue(errors.first?.hasPrefix("opep: error: \(broken): ") ?? false, imported.stderr)

        let again = try run(["history", "import", documents[1], sameMeasurements, "--database", database])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(
            nonEmptyLines(again.stdout),
            ["\(documents[1]): session 2 (already in the history)", "\(sameMeasurements): session 1 (already in the history)"],
            "the same breaths and sets are the same session, whatever the settings around them")

        let list = try run(["history", "--database", database])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertEqual(nonEmptyLines(list.stdout).filter { $0.contains("imported") }.count, 2, list.stdout)

        let shown = try run(["history", "show", "1", "--database", database])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertTrue(shown.stdout.contains("\(session.truth.breaths.count) breaths"), shown.stdout)

        let csv = try run(["history", "export", "1", "--format", "csv", "--database", database])
        XCTAssertEqual(csv.status, 0, csv.stderr)
        XCTAssertEqual(nonEmptyLines(csv.stdout).count, 1, "an imported session has no frames, only the header")

        let report = directory.path("imported.html")
        let fromHistory = try run(["report", "--session", "1", "--database", database, "-o", report])
        XCTAssertEqual(fromHistory.status, 0, fromHistory.stderr)
        let html = try String(contentsOfFile: report, encoding: .utf8)
        XCTAssertEqual(html.components(separatedBy: "<tr class=\"breath\"").count - 1, session.truth.breaths.count)
    }

    func testImportWithoutFilesOrWithAMissingOneFails() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("history.sqlite")
        let none = try run(["history", "import", "--database", database])
        XCTAssertNotEqual(none.status, 0)
        XCTAssertTrue(none.stderr.contains("`import` needs at least one file"), none.stderr)

        let missing = directory.path("missing.json")
        let result = try run(["history", "import", missing, "--database", database])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertEqual(nonEmptyLines(result.stderr), ["opep: error: \(missing): no such file"])
        XCTAssertEqual(result.stdout, "")
    }
}
