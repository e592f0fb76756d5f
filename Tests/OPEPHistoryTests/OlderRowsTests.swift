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

    func testARowWithAShortSetPauseAndNoHuffSetPauseReadsAsItWasAnalysed() throws {
        let store = try HistoryStore()
        let id = try recordSession(into: store)
        try rewrite("configuration_json", of: id, in: store) { configuration in
            configuration["setPause"] = 5.0
            configuration["huffSetPause"] = nil
        }

        let exported = try XCTUnwrap(try store.exportAnalysis(id))
        let configuration = exported.settings.configuration
        XCTAssertEqual(configuration.setPause, 5)
        XCTAssertEqual(configuration.huffSetPause, 5, "before the huff set pause, a set ended at the set pause alone")
        XCTAssertNoThrow(try configuration.validate(), "the settings of an older row must make an analyser")
        XCTAssertNotNil(try store.exportCSV(id))
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

    /// Breath events written before `breath_in_set` existed, in rows and in documents, are
    /// numbered in their sets when read.
    func testBreathEventsFromEarlierReleasesAreNumberedInTheirSets() throws {
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("opep-older-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = (folder as NSString).appendingPathComponent("history.sqlite")
        let numbered: [(kind: String, breath: Int?, set: Int?, inSet: Int?)] = [
            ("breath_started", 1, 1, 1), ("breath_ended", 1, 1, 1), ("breath_started", 2, 1, 2), ("breath_ended", 2, 1, 2),
            ("huff_cough", nil, 1, nil), ("set_ended", nil, 1, nil),
            ("breath_started", 3, 2, 1), ("breath_ended", 3, 2, 1), ("set_ended", nil, 2, nil),
        ]
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteHistoryDatabase.migrator.migrate(queue, upTo: "v3-stable-import-keys")
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO sessions (id, started_at, source, status, plan_json, configuration_json, input, frame_interval_s, latency_s)
                    VALUES (1, 1790000000, 'monitor', 'complete', '{}', '{}', 'test', 0.01, 1.5)
                    """)
                for (seq, event) in numbered.enumerated() {
                    try db.execute(
                        sql: #"INSERT INTO events (session_id, seq, type, time_s, breath, "set") VALUES (1, ?, ?, ?, ?, ?)"#,
                        arguments: [seq, event.kind, Double(seq), event.breath, event.set])
                }
            }
        }
        let store = try HistoryStore(path: path)
        let events = try XCTUnwrap(try store.session(1)).events
        XCTAssertEqual(events.map(\.breathInSet), numbered.map(\.inSet))
        XCTAssertEqual(events.map(\.breath), numbered.map(\.breath))

        let s = HistoryStoreTests.session
        let document = SessionAnalysis(
            settings: .init(file: "older.wav", format: "test", configuration: s.analyzer.configuration,
                            frameIntervalS: s.analyzer.frameInterval, latencyS: s.analyzer.latency, warnings: []),
            summary: s.report.summary, breaths: s.report.breaths, sets: s.report.sets, events: events)
        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try reportJSON(document, pretty: false).utf8)) as? [String: Any])
        let written = try XCTUnwrap(object["events"] as? [[String: Any]])
        XCTAssertEqual(written.compactMap { $0["breath_in_set"] as? Int }, [1, 1, 2, 2, 1, 1])
        object["events"] = written.map { $0.filter { $0.key != "breath_in_set" } }
        let older = try SessionAnalysis(json: try JSONSerialization.data(withJSONObject: object))
        XCTAssertEqual(older.events, events)
    }
}
