import Foundation
import GRDB
import OPEPKit
import XCTest

@testable import OPEPHistory

/// Sessions stored by an earlier release, whose settings and summary lack fields added since (or
/// hold fields a later release added), still list, show and export.
final class OlderRowsTests: XCTestCase {
    /// Rewrites one JSON column of a stored session through `edit`.
    private func rewrite(_ column: String, of id: Int64, in store: HistoryStore, _ edit: (inout [String: Any]) -> Void) throws {
        try store.writer.write { db in
            let json = try XCTUnwrap(try String.fetchOne(db, sql: "SELECT \(column) FROM sessions WHERE id = ?", arguments: [id]))
            var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            edit(&object)
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            try db.execute(sql: "UPDATE sessions SET \(column) = ? WHERE id = ?", arguments: [String(decoding: data, as: UTF8.self), id])
        }
    }

    private func recordSession(into store: HistoryStore) throws -> Int64 {
        let s = HistoryStoreTests.session
        let recorder = try store.beginSession(
            plan: .standard, source: .browser, configuration: s.analyzer.configuration, frameInterval: s.analyzer.frameInterval,
            latency: s.analyzer.latency, input: "test stream")
        for output in s.outputs { recorder.record(output) }
        try recorder.finish(s.report, status: .complete)
        return recorder.id
    }

    func testARowMissingFieldsAddedSinceShowsAndExportsWithTheirDefaults() throws {
        let store = try HistoryStore()
        let id = try recordSession(into: store)
        let expected = HistoryStoreTests.session
        try rewrite("configuration_json", of: id, in: store) { configuration in
            var tracker = configuration["tracker"] as! [String: Any]
            tracker["fadeDrop"] = nil
            tracker["minimumModulation"] = nil
            configuration["tracker"] = tracker
            var detector = configuration["detector"] as! [String: Any]
            detector["hangover"] = nil
            configuration["detector"] = detector
            configuration["huffSetPause"] = nil
        }
        try rewrite("summary_json", of: id, in: store) { summary in
            summary["inhalations_heard"] = nil
            summary["exhalation_inhalation_ratio"] = nil
        }

        let detail = try XCTUnwrap(try store.session(id), "an older row must still show")
        XCTAssertEqual(detail.summary?.breathCount, expected.report.summary.breathCount)
        XCTAssertEqual(detail.summary?.inhalationsHeard, 0)
        XCTAssertNil(detail.summary?.exhalationInhalationRatio)
        let exported = try XCTUnwrap(try store.exportAnalysis(id), "an older row must still export")
        XCTAssertEqual(exported.settings.configuration, expected.analyzer.configuration, "missing settings take today's defaults")
        XCTAssertEqual(exported.breaths, expected.report.breaths)
        XCTAssertNotNil(try store.exportCSV(id))
        let json = try XCTUnwrap(try store.exportJSON(id))
        XCTAssertEqual(try SessionAnalysis(json: Data(json.utf8)).settings.tracker, expected.analyzer.configuration.tracker)
        XCTAssertEqual(try store.sessions().map(\.id), [id])
    }

    func testFieldsFromALaterReleaseAreIgnored() throws {
        let store = try HistoryStore()
        let id = try recordSession(into: store)
        try rewrite("configuration_json", of: id, in: store) { configuration in
            var tracker = configuration["tracker"] as! [String: Any]
            tracker["someFutureThreshold"] = 0.5
            configuration["tracker"] = tracker
            configuration["signalCheck"] = ["enabled": true]
        }
        try rewrite("summary_json", of: id, in: store) { summary in
            summary["measured_share"] = 0.93
        }
        let detail = try XCTUnwrap(try store.session(id))
        XCTAssertEqual(detail.summary, HistoryStoreTests.session.report.summary)
        let exported = try XCTUnwrap(try store.exportAnalysis(id))
        XCTAssertEqual(exported.settings.configuration, HistoryStoreTests.session.analyzer.configuration)
        XCTAssertNotNil(try store.exportJSON(id))
    }
}
