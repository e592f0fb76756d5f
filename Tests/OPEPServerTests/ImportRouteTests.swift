import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import OPEPHistory
import OPEPKit
import XCTest
import TestSessions

@testable import OPEPServer

/// `POST /api/sessions`: the phone hands over a session's document.
final class ImportRouteTests: XCTestCase {
    func app(_ store: HistoryStore) throws -> some ApplicationProtocol {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return try buildApplication(ServerConfiguration(port: 0), store: store, logger: logger)
    }

    /// The simulated session's analysis as `opep analyze --format json` writes it.
    static func document() throws -> SessionAnalysis {
        let (outputs, report, analyzer) = try analyse(try simulatedSession())
        let settings = SessionAnalysis.Settings(
            file: "phone.wav", format: "phone microphone", configuration: analyzer.configuration,
            frameIntervalS: analyzer.frameInterval, latencyS: analyzer.latency, warnings: [], recordedAt: "2026-03-01T08:30:00Z")
        return SessionAnalysis(
            settings: settings, summary: report.summary, breaths: report.breaths, sets: report.sets,
            events: outputs.compactMap { if case let .event(e) = $0 { e } else { nil } })
    }

    func testAPostedDocumentIsSavedOnceAndHasNoFrames() async throws {
        let store = try HistoryStore()
        let document = try Self.document()
        try await app(store).test(.router) { client in
            try await client.execute(uri: "/api/sessions", method: .post, body: ByteBuffer(string: try reportJSON(document, pretty: true))) { response in
                XCTAssertEqual(response.status, .created)
                XCTAssertEqual(response.headers[.contentType], "application/json; charset=utf-8")
                let object = try json(response.body)
                XCTAssertEqual(object["session_id"] as? Int, 1)
                XCTAssertEqual(object["created"] as? Bool, true)
                XCTAssertEqual(response.headers[.location], "/api/sessions/1")
            }
            try await client.execute(uri: "/api/sessions", method: .post, body: ByteBuffer(string: try reportJSON(document, pretty: false))) { response in
                XCTAssertEqual(response.status, .ok)
                let object = try json(response.body)
                XCTAssertEqual(object["session_id"] as? Int, 1)
                XCTAssertEqual(object["created"] as? Bool, false)
            }
            try await client.execute(uri: "/api/sessions", method: .get) { response in
                let rows = try XCTUnwrap(try json(response.body)["sessions"] as? [[String: Any]])
                XCTAssertEqual(rows.count, 1)
                XCTAssertEqual(rows[0]["source"] as? String, "imported")
                XCTAssertEqual(rows[0]["started_at"] as? String, "2026-03-01T08:30:00Z")
                XCTAssertEqual(rows[0]["breaths"] as? Int, document.breaths.count)
            }
            try await client.execute(uri: "/api/sessions/1", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual((try json(response.body)["breaths"] as? [Any])?.count, document.breaths.count)
            }
            try await client.execute(uri: "/api/sessions/1/frames", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(String(buffer: response.body), #"{"frames":[]}"#)
            }
            try await client.execute(uri: "/api/sessions/1/export.csv", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(String(buffer: response.body), FrameCSV.header + "\n")
            }
            try await client.execute(uri: "/api/sessions/1/export.json", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(try SessionAnalysis(json: Data(buffer: response.body)).breaths, document.breaths)
            }
        }
    }

    func testWhatIsNotADocumentIsRefusedWithTheReason() async throws {
        let store = try HistoryStore()
        var backwards = try Self.document()
        backwards.breaths[0].end = backwards.breaths[0].start - 0.5
        let cases: [(body: String, reason: String)] = [
            ("not json", "not valid JSON"),
            (#"{"target_low_cmh2o": 12, "target_high_cmh2o": 18, "sets": 2}"#, "missing settings"),
            (#"{"settings": {}, "summary": {}, "breaths": [], "sets": [], "events": []}"#, "missing settings.file"),
            (try reportJSON(backwards, pretty: false), "breaths[0].end_s"),
        ]
        try await app(store).test(.router) { client in
            for (body, reason) in cases {
                try await client.execute(uri: "/api/sessions", method: .post, body: ByteBuffer(string: body)) { response in
                    XCTAssertEqual(response.status, .badRequest, body)
                    let error = try XCTUnwrap(try json(response.body)["error"] as? String, body)
                    XCTAssertTrue(error.contains(reason), "\(reason) not in: \(error)")
                }
            }
            let limit = ServerConfiguration.Limits().maxDocumentBytes
            XCTAssertEqual(limit, 2 << 20)
            let oversized = ByteBuffer(string: "[" + String(repeating: " ", count: limit) + "]")
            try await client.execute(uri: "/api/sessions", method: .post, body: oversized) { response in
                XCTAssertEqual(response.status, .contentTooLarge)
                let error = try XCTUnwrap(try json(response.body)["error"] as? String)
                XCTAssertTrue(error.contains("\(limit) bytes"), error)
            }
            try await client.execute(uri: "/api/sessions", method: .get) { response in
                XCTAssertEqual((try json(response.body)["sessions"] as? [Any])?.count, 0, "nothing refused is saved")
            }
        }
    }

    func testOnlyTheNamedOriginsMaySendSessionsFromTheirPages() async throws {
        let store = try HistoryStore()
        var configuration = ServerConfiguration(port: 0)
        configuration.uploadOrigins = ["https://coach.example.org"]
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let body = try reportJSON(try Self.document(), pretty: false)
        try await buildApplication(configuration, store: store, logger: logger).test(.router) { client in
            let phone: HTTPFields = [.origin: "https://coach.example.org"]
            try await client.execute(uri: "/api/sessions", method: .options, headers: phone) { response in
                XCTAssertEqual(response.status, .noContent)
                XCTAssertEqual(response.headers[.accessControlAllowOrigin], "https://coach.example.org")
                XCTAssertEqual(response.headers[.accessControlAllowMethods], "POST")
                XCTAssertEqual(response.headers[.accessControlAllowHeaders], "Content-Type, Authorization")
            }
            try await client.execute(uri: "/api/sessions", method: .post, headers: phone, body: ByteBuffer(string: body)) { response in
                XCTAssertEqual(response.status, .created)
                XCTAssertEqual(response.headers[.accessControlAllowOrigin], "https://coach.example.org")
            }
            try await client.execute(uri: "/api/sessions", method: .post, headers: phone, body: ByteBuffer(string: "{}")) { response in
                XCTAssertEqual(response.status, .badRequest)
                XCTAssertEqual(response.headers[.accessControlAllowOrigin], "https://coach.example.org", "the page must be able to read why")
            }
            let stranger: HTTPFields = [.origin: "https://elsewhere.example"]
            try await client.execute(uri: "/api/sessions", method: .post, headers: stranger, body: ByteBuffer(string: body)) { response in
                XCTAssertNil(response.headers[.accessControlAllowOrigin])
            }
            try await client.execute(uri: "/api/sessions", method: .get, headers: phone) { response in
                XCTAssertNil(response.headers[.accessControlAllowOrigin], "only sending is open to the phone's page")
            }
            try await client.execute(uri: "/api/plan", method: .get, headers: phone) { response in
                XCTAssertNil(response.headers[.accessControlAllowOrigin])
            }
        }
    }
}
