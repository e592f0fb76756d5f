import Foundation
import Logging
import OPEPKit
import XCTest

@testable import OPEPHistory
@testable import OPEPServer

final class AbandonedSessionsTests: XCTestCase {
    /// A session left recording by a server that was killed is marked interrupted by the next
    /// server's check soon after it starts; one saved a moment ago is left recording; the checks
    /// stop when their task is cancelled.
    func testTheChecksCloseTheSessionsAKilledServerLeftRecording() async throws {
        let store = try HistoryStore()
        let analyzer = try SessionAnalyzer(configuration: .init(sampleRate: 16000))
        func begin() throws -> Int64 {
            try store.beginSession(
                plan: .standard, source: .browser, configuration: analyzer.configuration, frameInterval: analyzer.frameInterval,
                latency: analyzer.latency, input: "test"
            ).id
        }
        let abandoned = try begin()
        let running = try begin()
        let lastSave = Date().addingTimeInterval(-45).timeIntervalSince1970
        try store.database.write { db in try db.execute("UPDATE sessions SET saved_at = ? WHERE id = ?", [lastSave, abandoned]) }

        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let checks = Task { await AbandonedSessions(store: store, interval: .milliseconds(50), logger: logger).run() }
        for _ in 0..<100 {
            if try store.sessions().first(where: { $0.id == abandoned })?.status == .interrupted { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        checks.cancel()
        await checks.value
        let statuses = Dictionary(uniqueKeysWithValues: try store.sessions().map { ($0.id, $0.status) })
        XCTAssertEqual(statuses[abandoned], .interrupted)
        XCTAssertEqual(statuses[running], .recording)
        XCTAssertEqual(try store.exportAnalysis(abandoned)?.settings.warnings, [HistoryStore.abandonedWarning])
    }
}
