import Foundation
import GRDB
import OPEPKit
import XCTest

@testable import OPEPHistory

/// Sessions analysed elsewhere come in as their `opep analyze --format json` document.
final class ImportTests: XCTestCase {
    /// The simulated session's analysis as its document, with settings away from the defaults
    /// (acronym keys such as `on_margin_db` must come back too).
    static let document: SessionAnalysis = {
        let s = HistoryStoreTests.session
        var configuration = s.analyzer.configuration
        configuration.target = TargetRange(lowerCmH2O: 12, upperCmH2O: 18)
        configuration.detector.noiseFloorDB = -62
        configuration.detector.onMarginDB = 11
        configuration.detector.huffDurations = 0.2...1.4
        configuration.tracker.fadeDrop = 12
        configuration.setPause = 9
        configuration.huffSetPause = 5
        configuration.inhalationLead = 2.5
        let settings = SessionAnalysis.Settings(
            file: "phone.wav", format: "phone microphone, 16000 Hz", configuration: configuration,
            frameIntervalS: s.analyzer.frameInterval, latencyS: s.analyzer.latency, warnings: ["clipped 2 times"])
        return SessionAnalysis(
            settings: settings, summary: s.report.summary, breaths: s.report.breaths, sets: s.report.sets,
            events: s.outputs.compactMap { if case let .event(e) = $0 { e } else { nil } })
    }()

    func testTheDocumentDecodesToWhatWasEncoded() throws {
        let document = Self.document
        let json = try reportJSON(document, pretty: true)
        XCTAssertFalse(json.contains("recorded_at"), "no recorded_at key when there is no time")
        let decoded = try SessionAnalysis(json: Data(json.utf8))
        XCTAssertEqual(decoded.settings.configuration, document.settings.configuration)
        XCTAssertEqual(decoded.settings.configuration.detector.noiseFloorDB, -62)
        XCTAssertEqual(decoded.settings.configuration.detector.onMarginDB, 11)
        XCTAssertEqual(decoded.settings.configuration.huffSetPause, 5)
        XCTAssertEqual(decoded.settings.configuration.inhalationLead, 2.5)
        XCTAssertEqual(decoded.settings.device, document.settings.device)
        XCTAssertEqual(decoded.settings.warnings, ["clipped 2 times"])
        XCTAssertEqual(decoded.summary, document.summary)
        XCTAssertEqual(decoded.breaths, document.breaths)
        XCTAssertEqual(decoded.sets, document.sets)
        XCTAssertEqual(decoded.events, document.events)
        XCTAssertNil(decoded.settings.recordedAt)
        XCTAssertEqual(try reportJSON(decoded, pretty: true), json)

        var timed = document
        timed.settings.recordedAt = "2026-03-01T08:30:00Z"
        let timedJSON = try reportJSON(timed, pretty: false)
        XCTAssertTrue(timedJSON.contains(#""recorded_at":"2026-03-01T08:30:00Z""#))
        XCTAssertEqual(try SessionAnalysis(json: Data(timedJSON.utf8)).settings.recordedAt, "2026-03-01T08:30:00Z")
    }

    func testAnImportedSessionHasEverythingButFrames() throws {
        try eachStore { store in
            let document = Self.document
            let start = Date(timeIntervalSince1970: 1_790_000_000)
            let saved = try store.importSession(try SessionAnalysis(json: Data(try reportJSON(document, pretty: true).utf8)), defaultStart: start)
            XCTAssertTrue(saved.created)

            let detail = try XCTUnwrap(try store.session(saved.id))
            XCTAssertEqual(detail.summary, document.summary)
            XCTAssertEqual(detail.breaths, document.breaths)
            XCTAssertEqual(detail.sets, document.sets)
            XCTAssertEqual(detail.events, document.events)
            XCTAssertEqual(detail.plan.target, TargetRange(lowerCmH2O: 12, upperCmH2O: 18))
            XCTAssertEqual(detail.plan.device, document.settings.device)
            XCTAssertEqual(detail.session.source, .imported)
            XCTAssertEqual(detail.session.status, .complete)
            XCTAssertEqual(detail.session.startedAt, "2026-09-21T14:13:20Z")
            XCTAssertEqual(detail.session.breaths, document.breaths.count)
            XCTAssertEqual(detail.session.meanPressureCmH2O, document.summary.meanPressure)

            XCTAssertEqual(try store.frames(saved.id)?.count, 0)
            XCTAssertEqual(try store.exportCSV(saved.id), FrameCSV.header + "\n")
            let exported = try XCTUnwrap(try store.exportAnalysis(saved.id))
            XCTAssertEqual(exported.settings.configuration, document.settings.configuration)
            XCTAssertEqual(exported.settings.format, document.settings.format)
            XCTAssertEqual(exported.settings.warnings, document.settings.warnings)
            XCTAssertEqual(exported.breaths, document.breaths)
        }
    }

    func testImportingTheSameDocumentAgainChangesNothing() throws {
        try eachStore { store in
            let first = try store.importSession(Self.document, defaultStart: Date())
            let compact = try SessionAnalysis(json: Data(try reportJSON(Self.document, pretty: false).utf8))
            let again = try store.importSession(compact, defaultStart: Date().addingTimeInterval(3600))
            XCTAssertEqual(again, SessionImport(id: first.id, created: false))
            XCTAssertEqual(try store.sessions().count, 1)
            XCTAssertEqual(try store.session(first.id)?.events.count, Self.document.events.count, "no events written twice")

            var retimed = Self.document
            retimed.settings.recordedAt = "2026-03-01T08:30:00Z"
            XCTAssertEqual(
                try store.importSession(retimed, defaultStart: Date()), SessionImport(id: first.id, created: false),
                "the same measurements are the same session, whatever time the document gives")

            var other = Self.document
            other.breaths[other.breaths.count - 1].end += 0.01
            let second = try store.importSession(other, defaultStart: Date())
            XCTAssertTrue(second.created)
            XCTAssertNotEqual(second.id, first.id)
            XCTAssertEqual(try store.sessions().count, 2)

            XCTAssertTrue(try store.deleteSession(first.id))
            let afterDeletion = try store.importSession(Self.document, defaultStart: Date())
            XCTAssertTrue(afterDeletion.created, "a deleted session can be imported again")
        }
    }

    /// Phones sending the same session at once (a retry racing its first attempt): it is saved
    /// once, and every sender is given its id.
    func testRacingImportsOfOneSessionSaveItOnce() throws {
        try eachStore { store in
            let senders = 8
            let results = Collected<Result<SessionImport, any Error>>()
            DispatchQueue.concurrentPerform(iterations: senders) { _ in
                results.add(Result { try store.importSession(Self.document, defaultStart: Date()) })
            }
            let imports = try results.all.map { try $0.get() }
            XCTAssertEqual(imports.count, senders)
            XCTAssertEqual(imports.filter(\.created).count, 1)
            XCTAssertEqual(Set(imports.map(\.id)).count, 1)
            XCTAssertEqual(try store.sessions().count, 1)
            XCTAssertEqual(try store.session(imports[0].id)?.breaths, Self.document.breaths)
        }
    }

    func testRecordedAtIsTheStart() throws {
        try eachStore { store in
            var document = Self.document
            document.settings.recordedAt = "2026-03-01T08:30:00Z"
            let plain = try store.importSession(document, defaultStart: Date())
            XCTAssertEqual(try store.session(plain.id)?.session.startedAt, "2026-03-01T08:30:00Z")
            document.settings.recordedAt = "2026-03-02T09:15:30.250Z"
            document.summary.duration += 1
            let fractional = try store.importSession(document, defaultStart: Date())
            let started = try XCTUnwrap(try store.session(fractional.id)?.session.startedAt)
            XCTAssertEqual(try Date(started, strategy: .iso8601).timeIntervalSince1970, 1_772_442_930, accuracy: 1)
        }
    }

    func testInconsistentDocumentsAreRefusedNamingTheField() throws {
        try eachStore { store in
            func refusal(_ change: (inout SessionAnalysis) -> Void) throws -> SessionDocumentError? {
                var document = Self.document
                change(&document)
                do {
                    try store.importSession(document, defaultStart: Date())
                } catch let error as SessionDocumentError {
                    return error
                }
                return nil
            }
            let backwards = try refusal { $0.breaths[1].end = $0.breaths[1].start - 1 }
            XCTAssertEqual(backwards?.field, "breaths[1].end_s")
            XCTAssertEqual(try refusal { $0.breaths[0].meanPressure = .nan }?.field, "breaths[0].mean_pressure_cmh2o")
            XCTAssertEqual(try refusal { $0.breaths[0].index = 0 }?.field, "breaths[0].index")
            XCTAssertEqual(try refusal { $0.breaths[2].index = 1 }?.field, "breaths[2].index")
            XCTAssertEqual(try refusal { $0.sets[0].end = .infinity }?.field, "sets[0].end_s")
            XCTAssertEqual(try refusal { $0.summary.duration = -.infinity }?.field, "summary.duration_s")
            XCTAssertEqual(try refusal { $0.events[0].time = .nan }?.field, "events[0].time_s")
            XCTAssertEqual(try refusal { $0.settings.frameIntervalS = 0 }?.field, "settings.frame_interval_s")
            XCTAssertEqual(try refusal { $0.settings.recordedAt = "yesterday" }?.field, "settings.recorded_at")
            XCTAssertEqual(try refusal { $0.settings.tracker.sampleRate = 100 }?.field, "settings.sampleRate")
            XCTAssertEqual(try store.sessions().count, 0, "nothing refused is saved")
            XCTAssertNoThrow(try Self.document.validate())
        }
    }

    func testTheImportMigrationKeepsSessionsIdsAndForeignKeys() throws {
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("opep-import-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = (folder as NSString).appendingPathComponent("history.sqlite")
        do {
            var configuration = Configuration()
            configuration.foreignKeysEnabled = true
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try SQLiteHistoryDatabase.migrator.migrate(queue, upTo: "v1-sessions")
            try queue.write { db in
                for id in 1...3 {
                    try db.execute(
                        sql: """
                            INSERT INTO sessions (id, started_at, source, status, plan_json, configuration_json, input, frame_interval_s, latency_s, breath_count)
                            VALUES (?, ?, 'monitor', 'complete', '{}', '{}', 'test', 0.01, 1.5, 1)
                            """,
                        arguments: [id, 1_790_000_000 + Double(id)])
                    try db.execute(
                        sql: #"INSERT INTO breaths (session_id, "index", "set", start_s, end_s, duration_s, flutter_share) VALUES (?, 1, 1, 2, 5, 3, 0.9)"#,
                        arguments: [id])
                }
                try db.execute(sql: "DELETE FROM sessions WHERE id = 3")
            }
        }
        let store = try HistoryStore(path: path)
        XCTAssertEqual(try store.appliedMigrations(), ["v1-sessions", "v2-imports", "v3-stable-import-keys", "v4-event-breath-in-set", "v5-signal-check", "v6-breath-signal", "v7-saved-at", "v8-clinicians-and-patients", "v9-clinician-sign-ins", "v10-archived-patients"])
        XCTAssertEqual(try store.sessions().map(\.id), [2, 1])
        XCTAssertEqual(try store.sessions().map(\.source), [.monitor, .monitor])
        XCTAssertEqual(try store.session(1)?.breaths.map(\.end), [5])

        let imported = try store.importSession(Self.document, defaultStart: Date())
        XCTAssertEqual(imported.id, 4, "ids of deleted sessions are not given out again")
        XCTAssertTrue(try store.deleteSession(1))
        let (breaths, problems, indexes) = try store.writer.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM breaths WHERE session_id = 1"),
             try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count,
             try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sessions' AND sql IS NOT NULL"))
        }
        XCTAssertEqual(breaths, 0, "deleting a session still deletes its breaths")
        XCTAssertEqual(problems, 0)
        XCTAssertEqual(indexes, ["sessions_on_started_at", "sessions_on_patient_id"])
        XCTAssertThrowsError(try store.writer.write { db in
            try db.execute(sql: "UPDATE sessions SET source = 'elsewhere' WHERE id = 2")
        }, "the source is still checked")
    }

    /// The same session sent again after an upgrade (its document written by a release with other
    /// defaults, settings this one does not know, or without some it has) is saved once.
    func testTheSameSessionFromAnotherReleaseIsImportedOnce() throws {
        try eachStore { store in
            let first = try store.importSession(Self.document, defaultStart: Date())
            var object = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(try reportJSON(Self.document, pretty: false).utf8)) as? [String: Any])
            var settings = try XCTUnwrap(object["settings"] as? [String: Any])
            var tracker = try XCTUnwrap(settings["tracker"] as? [String: Any])
            tracker["evidence_time"] = nil
            tracker["evidence_acceptance"] = nil
            tracker["a_setting_from_the_future"] = 3
            tracker["acceptance"] = 0.55
            settings["tracker"] = tracker
            object["settings"] = settings
            object["schema_version"] = 9
            var summary = try XCTUnwrap(object["summary"] as? [String: Any])
            summary["inhalations_heard"] = nil
            object["summary"] = summary
            let other = try SessionAnalysis(json: try JSONSerialization.data(withJSONObject: object))
            XCTAssertNotEqual(try reportJSON(other, pretty: false), try reportJSON(Self.document, pretty: false))
            XCTAssertEqual(try store.importSession(other, defaultStart: Date()), SessionImport(id: first.id, created: false))
            XCTAssertEqual(try store.sessions().count, 1)
        }
    }

    /// The key's canonical text is fixed for good: every stored key and migration
    /// `v3-stable-import-keys` depend on it. The expected key was computed outside Swift (Python's
    /// hashlib over the text `opep-session-identity 2`, `duration`, `breath` and `set` lines with
    /// each number's IEEE 754 bits in hex), so a change to the text, the number format or the hash
    /// fails here.
    func testTheImportKeyOfAFixedSessionNeverChanges() {
        let key = ImportKey(
            duration: 61.25,
            breaths: [
                .init(index: 0, set: 0, start: 2.5, end: 5.75, meanPressure: 14.2),
                .init(index: 1, set: 0, start: 8, end: 10.125, meanPressure: nil),
            ],
            sets: [.init(index: 0, start: 2.5, end: 10.125, breathCount: 2)])
        XCTAssertEqual(key.text, "v2:6610a2b8e6eff607545cbe480536b99fd201d5abfa3fd73f4984b42e0c0d7c2b")
        let negativeZero = ImportKey(duration: -0.0, breaths: [], sets: [])
        XCTAssertEqual(negativeZero.text, ImportKey(duration: 0, breaths: [], sets: []).text, "-0 is stored as 0 by SQLite")
    }

    /// Keys written by earlier releases (the re-encoded document's hash) are rewritten from the
    /// stored rows, so re-importing finds them; a session that bug saved twice keeps its old key
    /// and both stay.
    func testOlderImportKeysAreRewrittenFromTheRows() throws {
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("opep-keys-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = (folder as NSString).appendingPathComponent("history.sqlite")
        let ids: [Int64]
        do {
            let store = try HistoryStore(path: path)
            var copy = Self.document
            copy.settings.recordedAt = "2026-03-01T08:30:00Z"
            ids = [try store.importSession(Self.document, defaultStart: Date()).id, try store.importSession(copy, defaultStart: Date()).id]
            XCTAssertEqual(ids[0], ids[1])
            let duplicate = try store.importSession(Self.document, defaultStart: Date())
            XCTAssertFalse(duplicate.created)
            try store.writer.write { db in
                try db.execute(sql: "UPDATE sessions SET import_key = 'legacy-a' WHERE id = ?", arguments: [ids[0]])
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v3-stable-import-keys'")
            }
            let twice = try store.importSession(Self.document, defaultStart: Date())
            XCTAssertTrue(twice.created, "with the older key in place the bug saves the session twice")
            try store.writer.write { db in
                try db.execute(sql: "UPDATE sessions SET import_key = 'legacy-b' WHERE id = ?", arguments: [twice.id])
            }
        }
        let store = try HistoryStore(path: path)
        let keys = try store.writer.read { db in try String.fetchAll(db, sql: "SELECT import_key FROM sessions ORDER BY id") }
        XCTAssertEqual(keys, [ImportKey(Self.document).text, "legacy-b"])
        XCTAssertEqual(try store.sessions().count, 2, "no session is lost")
        XCTAssertEqual(try store.importSession(Self.document, defaultStart: Date()), SessionImport(id: ids[0], created: false))
    }

    /// The document names its layout; one written before that, or by a release with event types
    /// this one does not know, still reads.
    func testTheDocumentCarriesItsVersionAndOlderOrNewerOnesRead() throws {
        let json = try reportJSON(Self.document, pretty: false)
        XCTAssertTrue(json.hasPrefix(#"{"breaths":"#), "keys stay sorted")
        XCTAssertTrue(json.contains(#""schema_version":\#(AnalysisDocumentSchema.version)"#), json)
        XCTAssertEqual(try SessionAnalysis(json: Data(json.utf8)).schemaVersion, AnalysisDocumentSchema.version)

        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        object["schema_version"] = nil
        var events = try XCTUnwrap(object["events"] as? [[String: Any]])
        events.insert(["type": "signal_check", "time_s": 1.5, "reason": "too_far"], at: 1)
        object["events"] = events
        let older = try SessionAnalysis(json: try JSONSerialization.data(withJSONObject: object))
        XCTAssertEqual(older.schemaVersion, 0)
        XCTAssertEqual(older.events, Self.document.events, "an event type from a later release is skipped, the rest kept")

        object["events"] = nil
        object["sets"] = nil
        let bare = try SessionAnalysis(json: try JSONSerialization.data(withJSONObject: object))
        XCTAssertEqual(bare.events, [])
        XCTAssertEqual(bare.sets, [])
        XCTAssertEqual(bare.breaths, Self.document.breaths)

        events[0]["time_s"] = "soon"
        object["events"] = events
        XCTAssertThrowsError(
            try SessionAnalysis(json: try JSONSerialization.data(withJSONObject: object)),
            "an event of a known type is still read strictly")
    }

    /// A document written before the huff set pause and the inhalation lead were recorded reads
    /// them as it was analysed: the default huff set pause capped at its set pause, and 3.5 s.
    func testSettingsAddedSinceReadAsTheyWereAnalysed() throws {
        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try reportJSON(Self.document, pretty: false).utf8)) as? [String: Any])
        var settings = try XCTUnwrap(object["settings"] as? [String: Any])
        XCTAssertEqual(settings["huff_set_pause_s"] as? Double, 5)
        XCTAssertEqual(settings["inhalation_lead_s"] as? Double, 2.5)
        settings["huff_set_pause_s"] = nil
        settings["inhalation_lead_s"] = nil
        for (setPause, huffSetPause) in [(9.0, 6.5), (4.0, 4.0)] {
            settings["set_pause_s"] = setPause
            object["settings"] = settings
            let older = try SessionAnalysis(json: try JSONSerialization.data(withJSONObject: object)).settings.configuration
            XCTAssertEqual(older.setPause, setPause)
            XCTAssertEqual(older.huffSetPause, huffSetPause)
            XCTAssertEqual(older.inhalationLead, 3.5)
        }
    }
}
