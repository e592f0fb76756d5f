import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import OPEPKit
import XCTest

@testable import OPEPHistory
@testable import OPEPServer

final class AbandonedSessionsTests: XCTestCase {
    /// A session left recording by a server that was killed is marked interrupted by the next
    /// server soon after it starts; one saved a moment ago is left recording.
    func testAServerClosesTheSessionsAKilledOneLeftRecording() async throws {
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

        var configuration = ServerConfiguration(port: 0)
        configuration.abandonedSessionCheck = .milliseconds(100)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let statuses = try await buildApplication(configuration, store: store, logger: logger).test(.live) { _ in
            for _ in 0..<100 {
                if try store.sessions().first(where: { $0.id == abandoned })?.status == .interrupted { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            return Dictionary(uniqueKeysWithValues: try store.sessions().map { ($0.id, $0.status) })
        }
        XCTAssertEqual(statuses[abandoned], .interrupted)
        XCTAssertEqual(statuses[running], .recording)
        XCTAssertEqual(try store.exportAnalysis(abandoned)?.settings.warnings, [HistoryStore.abandonedWarning])
    }
}
