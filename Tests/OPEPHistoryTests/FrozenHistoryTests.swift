import Foundation
import OPEPKit
import XCTest

@testable import OPEPHistory

/// A history and an analysis document written by an earlier release (`76aba40`: settings decoded
/// strictly, imports keyed by the re-encoded document, documents without `schema_version`, events
/// without `breath_in_set`), frozen under Fixtures/: session 1 recorded by `opep monitor` (2 sets
/// of 3 breaths), session 2 imported from the document (1 set of 3). Every later build opens it
/// and loses or duplicates nothing.
final class FrozenHistoryTests: XCTestCase {
    private func fixture(_ name: String) throws -> URL {
        try XCTUnwrap(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
    }

    /// A copy of the frozen history, which the migrations then bring up to date.
    private func openCopy() throws -> HistoryStore {
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("opep-frozen-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = (folder as NSString).appendingPathComponent("history.sqlite")
        try FileManager.default.copyItem(at: try fixture("history-76aba40.sqlite"), to: URL(fileURLWithPath: path))
        return try HistoryStore(path: path)
    }

    func testEverySessionOfAnEarlierReleaseShowsAndExports() throws {
        let store = try openCopy()
        XCTAssertEqual(try store.appliedMigrations(), ["v1-sessions", "v2-imports", "v3-stable-import-keys", "v4-event-breath-in-set", "v5-signal-check", "v6-breath-signal", "v7-saved-at", "v8-clinicians-and-patients", "v9-clinician-sign-ins", "v10-archived-patients"])
        let rows = try store.sessions()
        XCTAssertEqual(rows.map(\.id), [2, 1])
        XCTAssertEqual(rows.map(\.source), [.imported, .monitor])
        XCTAssertEqual(rows.map(\.breaths), [3, 6])
        let breathsInSets: [Int64: [Int?]] = [1: [1, 2, 3, 1, 2, 3], 2: [1, 2, 3]]
        for row in rows {
            let detail = try XCTUnwrap(try store.session(row.id), "session \(row.id)")
            XCTAssertEqual(detail.breaths.count, row.breaths)
            XCTAssertEqual(detail.events.filter { $0.kind == .breathEnded }.map(\.breathInSet), breathsInSets[row.id])
            let exported = try XCTUnwrap(try store.exportAnalysis(row.id))
            XCTAssertEqual(exported.breaths, detail.breaths)
            XCTAssertEqual(exported.sets, detail.sets)
            XCTAssertEqual(exported.schemaVersion, AnalysisDocumentSchema.version)
            XCTAssertNoThrow(try exported.settings.configuration.validate(), "session \(row.id)'s settings run today")
            assertRunsReadInSeconds(exported.settings.tracker, "session \(row.id)")
            let json = try XCTUnwrap(try store.exportJSON(row.id))
            XCTAssertEqual(try SessionAnalysis(json: Data(json.utf8)).breaths, detail.breaths)
            let csv = try XCTUnwrap(try store.exportCSV(row.id))
            XCTAssertEqual(csv.split(separator: "\n").count - 1, try store.frames(row.id)?.count, "one CSV row per stored frame")
        }
        let monitored = try XCTUnwrap(rows.last)
        XCTAssertEqual(Double(try store.frames(1)?.count ?? 0), monitored.durationS * 20, accuracy: 5, "the monitored session's frames, 20 per second")
    }

    /// The release stored its tracker's runs in frames (`maxRunLength` 10, `reportAfter` 10,
    /// 10 ms apart; `gaugeAfter` did not exist yet): they read as seconds.
    private func assertRunsReadInSeconds(_ tracker: FlutterPitchTracker.Configuration, _ what: String, line: UInt = #line) {
        XCTAssertEqual(tracker.longestRunTime, 0.1, accuracy: 1e-12, what, line: line)
        XCTAssertEqual(tracker.reportRunTime, 0.1, accuracy: 1e-12, what, line: line)
        XCTAssertEqual(
            tracker.gaugeRunTime, FlutterPitchTracker.Configuration(sampleRate: tracker.sampleRate).gaugeRunTime, accuracy: 1e-12,
            "\(what): today's default", line: line)
    }

    func testTheEarlierReleasesDocumentAndTodaysExportOfItAreNotImportedAgain() throws {
        let store = try openCopy()
        let document = try SessionAnalysis(json: Data(contentsOf: try fixture("analysis-76aba40.json")))
        XCTAssertEqual(document.schemaVersion, 0)
        assertRunsReadInSeconds(document.settings.tracker, "the document")
        XCTAssertEqual(try store.importSession(document, defaultStart: Date()), SessionImport(id: 2, created: false))
        let today = try XCTUnwrap(try store.exportAnalysis(2))
        XCTAssertEqual(try store.importSession(today, defaultStart: Date()), SessionImport(id: 2, created: false))
        XCTAssertEqual(try store.sessions().count, 2)
    }
}
