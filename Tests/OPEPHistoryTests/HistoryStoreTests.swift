import Foundation
import OPEPKit
import XCTest
import TestSessions

@testable import OPEPHistory

final class HistoryStoreTests: XCTestCase {
    struct Recorded: Sendable {
        var samples: [Float]
        var outputs: [SessionOutput]
        var report: SessionReport
        var analyzer: Analyzer
    }

    struct Analyzer: Sendable {
        var configuration: SessionAnalyzer.Configuration
        var frameInterval: Double
        var latency: Double
    }

    static let session: Recorded = {
        let samples = try! simulatedSession()
        let (outputs, report, analyzer) = try! analyse(samples)
        return Recorded(
            samples: samples, outputs: outputs, report: report,
            analyzer: Analyzer(configuration: analyzer.configuration, frameInterval: analyzer.frameInterval, latency: analyzer.latency))
    }()

    /// The store keeps one final frame in this many: 20 a second.
    static let keptFrameStep = Int((0.05 / session.analyzer.frameInterval).rounded())

    private func temporaryFolder() throws -> String {
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("opep-history-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        return folder
    }

    /// Records the simulated session into `store` and returns its id.
    private func record(into store: HistoryStore, startedAt: Date = Date(), status: SessionStatus = .complete) throws -> Int64 {
        let s = Self.session
        let recorder = try store.beginSession(
            plan: .standard, source: .browser, configuration: s.analyzer.configuration, frameInterval: s.analyzer.frameInterval,
            latency: s.analyzer.latency, input: "test stream", startedAt: startedAt)
        for output in s.outputs { recorder.record(output) }
        try recorder.finish(s.report, status: status)
        return recorder.id
    }

    func testMigrationsAreNamedAndReopeningKeepsData() throws {
        let path = (try temporaryFolder() as NSString).appendingPathComponent("a/b/history.sqlite")
        let store = try HistoryStore(path: path)
        XCTAssertEqual(try store.appliedMigrations(), ["v1-sessions", "v2-imports", "v3-stable-import-keys", "v4-event-breath-in-set", "v5-signal-check", "v6-breath-signal", "v7-saved-at", "v8-clinicians-and-patients", "v9-clinician-sign-ins", "v10-archived-patients"])
        let id = try record(into: store)
        let reopened = try HistoryStore(path: path)
        XCTAssertEqual(try reopened.appliedMigrations(), ["v1-sessions", "v2-imports", "v3-stable-import-keys", "v4-event-breath-in-set", "v5-signal-check", "v6-breath-signal", "v7-saved-at", "v8-clinicians-and-patients", "v9-clinician-sign-ins", "v10-archived-patients"])
        XCTAssertEqual(try reopened.sessions().map(\.id), [id])
        XCTAssertEqual(try HistoryStore().appliedMigrations(), ["v1-sessions", "v2-imports", "v3-stable-import-keys", "v4-event-breath-in-set", "v5-signal-check", "v6-breath-signal", "v7-saved-at", "v8-clinicians-and-patients", "v9-clinician-sign-ins", "v10-archived-patients"])
    }

    /// The history holds health data: the folder it creates, the database and its WAL files are
    /// its owner's only, also a database an earlier release left readable by everyone.
    func testTheHistoryIsReadableByItsOwnerOnly() throws {
        let folder = (try temporaryFolder() as NSString).appendingPathComponent("data")
        let path = (folder as NSString).appendingPathComponent("history.sqlite")
        let store = try HistoryStore(path: path)
        _ = try record(into: store)
        func mode(_ file: String) throws -> Int {
            try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int, file)
        }
        XCTAssertEqual(try mode(folder), 0o700)
        for file in [path, path + "-wal", path + "-shm"] {
            XCTAssertEqual(try mode(file), 0o600, file)
        }
        for file in [path, path + "-wal", path + "-shm"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        }
        let reopened = try HistoryStore(path: path)
        XCTAssertEqual(try reopened.sessions().count, 1)
        for file in [path, path + "-wal", path + "-shm"] {
            XCTAssertEqual(try mode(file), 0o600, file)
        }
    }

    func testPlanDefaultsSavesAndRefusesNonsense() throws {
        try eachStore { store in
            XCTAssertEqual(try store.plan(), .standard)
            var plan = TherapyPlan.standard
            plan.target = TargetRange(lowerCmH2O: 12, upperCmH2O: 18)
            plan.breathsPerSet = 12
            try store.savePlan(plan)
            XCTAssertEqual(try store.plan(), plan)
            plan.sets = 0
            XCTAssertThrowsError(try store.savePlan(plan))
            XCTAssertEqual(try store.plan().sets, 3)
        }
    }

    func testSessionRoundTrip() throws {
        try eachStore { store in
            let s = Self.session
            XCTAssertEqual(s.report.breaths.count, 3, "the simulated session should have 3 breaths")
            let id = try record(into: store)

            let rows = try store.sessions()
            XCTAssertEqual(rows.count, 1)
            XCTAssertEqual(rows[0].breaths, 3)
            XCTAssertEqual(rows[0].sets, s.report.sets.count)
            XCTAssertEqual(rows[0].status, .complete)
            XCTAssertEqual(rows[0].source, .browser)
            XCTAssertEqual(rows[0].meanPressureCmH2O, s.report.summary.meanPressure)
            XCTAssertEqual(rows[0].shareInTarget, s.report.summary.zoneShares?.within)

            let detail = try XCTUnwrap(try store.session(id))
            XCTAssertEqual(detail.summary, s.report.summary)
            XCTAssertEqual(detail.breaths, s.report.breaths)
            XCTAssertEqual(detail.sets, s.report.sets)
            let events = s.outputs.compactMap { if case let .event(e) = $0 { e } else { nil } }
            XCTAssertEqual(detail.events, events)
            XCTAssertEqual(detail.plan, .standard)

            let finals = s.outputs.compactMap { if case let .frame(f) = $0 { f } else { nil } }
            let frames = try XCTUnwrap(try store.frames(id))
            let step = Self.keptFrameStep
            XCTAssertEqual(frames.count, (finals.count + step - 1) / step, "final frames decimated to 20 per second")
            XCTAssertEqual(frames.first?.time, finals.first?.time)
            XCTAssertEqual(frames[1].time, finals[step].time)
            XCTAssertEqual(frames[1].pressure, finals[step].pressure)
            XCTAssertNil(try store.session(id + 1))
            XCTAssertNil(try store.frames(id + 1))
        }
    }

    func testExportHasTheShapeOfOpepAnalyze() throws {
        try eachStore { store in
            let s = Self.session
            let id = try record(into: store)
            let json = try XCTUnwrap(try store.exportJSON(id))
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            XCTAssertEqual(Set(object.keys), ["schema_version", "settings", "summary", "breaths", "sets", "events"])
            XCTAssertEqual(object["schema_version"] as? Int, AnalysisDocumentSchema.version)
            let settings = try XCTUnwrap(object["settings"] as? [String: Any])
            XCTAssertEqual(Set(settings.keys), [
                "file", "format", "sample_rate", "device", "target", "frame_interval_s", "latency_s", "set_pause_s", "huff_set_pause_s",
                "inhalation_lead_s", "pitch_average_s",
                "tracker", "detector", "signal", "warnings",
            ])
            XCTAssertEqual(settings["sample_rate"] as? Double, 16000)

            // Exactly what `opep analyze --format json` writes for the same analysis.
            let direct = SessionAnalysis(
                settings: .init(file: "session \(id)", format: "test stream", configuration: s.analyzer.configuration,
                                frameIntervalS: s.analyzer.frameInterval, latencyS: s.analyzer.latency, warnings: []),
                summary: s.report.summary, breaths: s.report.breaths, sets: s.report.sets,
                events: s.outputs.compactMap { if case let .event(e) = $0 { e } else { nil } })
            XCTAssertEqual(json, try reportJSON(direct, pretty: true))

            let csv = try XCTUnwrap(try store.exportCSV(id))
            let lines = csv.split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertEqual(lines.first.map(String.init), FrameCSV.header)
            XCTAssertEqual(lines.last, "")
            XCTAssertEqual(lines.count - 2, try store.frames(id)?.count)
            let finals = s.outputs.compactMap { if case let .frame(f) = $0 { f } else { nil } }
            let step = Self.keptFrameStep
            XCTAssertEqual(String(lines[1]), FrameCSV.row(finals[0]))
            let exhaling = try XCTUnwrap(finals.enumerated().first { $0.offset % step == 0 && $0.element.pressure != nil })
            XCTAssertEqual(String(lines[1 + exhaling.offset / step]), FrameCSV.row(exhaling.element))
            XCTAssertNil(try store.exportCSV(id + 1))
            XCTAssertNil(try store.exportJSON(id + 1))
        }
    }

    func testAnAbandonedRecordingKeepsWhatWasFlushed() throws {
        try eachStore { store in
            let s = Self.session
            var analyzer = try SessionAnalyzer(configuration: .init(sampleRate: 16000))
            let recorder = try store.beginSession(
                plan: .standard, source: .monitor, configuration: analyzer.configuration, frameInterval: analyzer.frameInterval,
                latency: analyzer.latency, input: "test", flushInterval: .zero)
            var start = 0
            while start < s.samples.count {
                var outputs: [SessionOutput] = []
                analyzer.process(Array(s.samples[start..<min(s.samples.count, start + 1600)])) { outputs.append($0) }
                outputs.forEach(recorder.record)
                try recorder.flushIfDue(report: analyzer.report)
                start += 1600
            }
            // No finish: as if the process had died.
            let row = try XCTUnwrap(try store.sessions().first)
            XCTAssertEqual(row.status, .recording)
            XCTAssertEqual(row.source, .monitor)
            XCTAssertEqual(row.breaths, analyzer.report.breaths.count)
            XCTAssertGreaterThanOrEqual(row.breaths, 2)
            let detail = try XCTUnwrap(try store.session(row.id))
            XCTAssertEqual(detail.breaths, analyzer.report.breaths)
            XCTAssertGreaterThan(try XCTUnwrap(try store.frames(row.id)).count, 100)

            // Unsaved for longer than abandonedAfter: interrupted, kept up to its last save, once.
            let finished = try record(into: store)
            XCTAssertEqual(try store.interruptAbandonedSessions(now: Date().addingTimeInterval(20)), [])
            XCTAssertEqual(try store.sessions().first { $0.id == row.id }?.status, .recording)
            XCTAssertEqual(try store.interruptAbandonedSessions(now: Date().addingTimeInterval(40)), [row.id])
            XCTAssertEqual(try store.interruptAbandonedSessions(now: Date().addingTimeInterval(40)), [])
            let interrupted = try XCTUnwrap(try store.sessions().first { $0.id == row.id })
            XCTAssertEqual(interrupted.status, .interrupted)
            XCTAssertEqual(interrupted.breaths, row.breaths)
            XCTAssertEqual(try store.exportAnalysis(row.id)?.settings.warnings, [HistoryStore.abandonedWarning])
            XCTAssertEqual(try store.sessions().first { $0.id == finished }?.status, .complete, "an ended session is not touched")

            // Its recorder was only cut off from the database: its next save records it again.
            try recorder.flush(report: analyzer.report)
            XCTAssertEqual(try store.sessions().first { $0.id == row.id }?.status, .recording)
            XCTAssertEqual(try store.exportAnalysis(row.id)?.settings.warnings, [])
            try recorder.finish(analyzer.report, status: .complete)
            XCTAssertEqual(try store.interruptAbandonedSessions(now: Date().addingTimeInterval(3600)), [])
            XCTAssertEqual(try store.sessions().first { $0.id == row.id }?.status, .complete)
        }
    }

    /// A session left recording by a release before saves were timed counts as saved at its start
    /// plus its length.
    func testARecordingOfAnOlderReleaseIsInterruptedByItsLength() throws {
        try eachStore { store in
            let started = Date().addingTimeInterval(-600)
            let recorder = try store.beginSession(
                plan: .standard, source: .browser, configuration: Self.session.analyzer.configuration,
                frameInterval: Self.session.analyzer.frameInterval, latency: Self.session.analyzer.latency, input: "test",
                startedAt: started)
            try store.database.write { db in try db.execute("UPDATE sessions SET saved_at = NULL, duration_s = 500 WHERE id = ?", [recorder.id]) }
            XCTAssertEqual(try store.interruptAbandonedSessions(now: started.addingTimeInterval(520)), [])
            XCTAssertEqual(try store.interruptAbandonedSessions(now: started.addingTimeInterval(540)), [recorder.id])
        }
    }

    func testTrendsGroupSessionsByDay() throws {
        try eachStore { store in
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let now = try XCTUnwrap(calendar.date(from: DateComponents(year: 2026, month: 11, day: 21, hour: 12)))
            let today = now.addingTimeInterval(-3600)
            let yesterday = now.addingTimeInterval(-86400)
            let longAgo = now.addingTimeInterval(-40 * 86400)
            _ = try record(into: store, startedAt: today)
            _ = try record(into: store, startedAt: today.addingTimeInterval(60))
            _ = try record(into: store, startedAt: yesterday)
            _ = try record(into: store, startedAt: longAgo)
            let days = try store.trends(days: 30, now: now, calendar: calendar)
            XCTAssertEqual(days.map(\.date), ["2026-11-20", "2026-11-21"])
            XCTAssertEqual(days.map(\.sessions), [1, 2])
            XCTAssertEqual(days.map(\.breaths), [3, 6])
            let summary = Self.session.report.summary
            XCTAssertEqual(try XCTUnwrap(days[1].shareInTarget), try XCTUnwrap(summary.zoneShares?.within), accuracy: 1e-9)
            XCTAssertEqual(try XCTUnwrap(days[1].meanPressureCmH2O), try XCTUnwrap(summary.meanPressure), accuracy: 1e-9)
            XCTAssertEqual(try store.trends(days: 60, now: now, calendar: calendar).count, 3)

            let listed = try store.sessions(from: yesterday.addingTimeInterval(-1), to: today)
            XCTAssertEqual(listed.count, 1)
        }
    }

    func testDefaultPathFollowsXDGAndHomeAndFoldersAreCreated() throws {
        let home = try temporaryFolder()
        #if os(macOS)
        XCTAssertEqual(HistoryStore.defaultPath(environment: ["HOME": home]), home + "/Library/Application Support/opep/history.sqlite")
        #else
        XCTAssertEqual(HistoryStore.defaultPath(environment: ["HOME": home]), home + "/.local/share/opep/history.sqlite")
        XCTAssertEqual(HistoryStore.defaultPath(environment: ["HOME": home, "XDG_DATA_HOME": home + "/data"]), home + "/data/opep/history.sqlite")
        XCTAssertEqual(HistoryStore.defaultPath(environment: ["HOME": home, "XDG_DATA_HOME": "relative"]), home + "/.local/share/opep/history.sqlite")
        #endif
        let path = HistoryStore.defaultPath(environment: ["HOME": home])
        _ = try HistoryStore(path: path)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
    }

    func testDeletingASessionRemovesItsRows() throws {
        try eachStore { store in
            let id = try record(into: store)
            XCTAssertTrue(try store.deleteSession(id))
            XCTAssertFalse(try store.deleteSession(id))
            XCTAssertEqual(try store.sessions().count, 0)
            XCTAssertNil(try store.frames(id))
            let left: Int? = try store.database.read { db in
                try db.row("SELECT (SELECT COUNT(*) FROM frames) + (SELECT COUNT(*) FROM breaths) + (SELECT COUNT(*) FROM events) AS n", [])?.get("n")
            }
            XCTAssertEqual(left, 0)
        }
    }
}
