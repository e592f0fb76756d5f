import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import OPEPHistory
import OPEPKit
import XCTest
import TestSessions

@testable import OPEPServer

final class RouteTests: XCTestCase {
    func app(_ store: HistoryStore) throws -> some ApplicationProtocol {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return try buildApplication(ServerConfiguration(port: 0), store: store, logger: logger)
    }


    func testPlanGetPutAndValidation() async throws {
        let store = try HistoryStore()
        try await app(store).test(.router) { client in
            try await client.execute(uri: "/api/plan", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(response.headers[.contentType], "application/json; charset=utf-8")
                let plan = try JSONDecoder().decode(TherapyPlan.self, from: Data(buffer: response.body))
                XCTAssertEqual(plan, .standard)
                let object = try json(response.body)
                XCTAssertEqual(Set(object.keys), ["target_low_cmh2o", "target_high_cmh2o", "breaths_per_set", "sets", "minutes", "sessions_per_day", "device"])
            }
            let body = #"{"target_low_cmh2o": 12, "target_high_cmh2o": 18, "breaths_per_set": 8, "sets": 2, "minutes": 10}"#
            try await client.execute(uri: "/api/plan", method: .put, body: ByteBuffer(string: body)) { response in
                XCTAssertEqual(response.status, .ok)
                let plan = try JSONDecoder().decode(TherapyPlan.self, from: Data(buffer: response.body))
                XCTAssertEqual(plan.target, TargetRange(lowerCmH2O: 12, upperCmH2O: 18))
                XCTAssertEqual(plan.breathsPerSet, 8)
                XCTAssertEqual(plan.sessionsPerDay, 2, "a plan written before sessions a day existed takes the default")
                XCTAssertEqual(plan.device, .acapella)
            }
            try await client.execute(uri: "/api/plan", method: .get) { response in
                XCTAssertEqual(try JSONDecoder().decode(TherapyPlan.self, from: Data(buffer: response.body)).sets, 2)
            }
            for bad in [
                #"{"target_low_cmh2o": 25, "target_high_cmh2o": 18}"#, #"{"sets": 0}"#, #"{"minutes": "ten"}"#, #"{"sessions_per_day": 11}"#, #"{"sessions_per_day": 0}"#, "not json",
                #"{"device": {"name": "x", "lower_frequency_hz": 10, "upper_frequency_hz": 11, "intercept_cmh2o": 0, "slope_cmh2o_per_hz": 1}}"#,
            ] {
                try await client.execute(uri: "/api/plan", method: .put, body: ByteBuffer(string: bad)) { response in
                    XCTAssertEqual(response.status, .badRequest, bad)
                    let error = try json(response.body)["error"] as? String
                    XCTAssertFalse(error?.isEmpty ?? true, bad)
                }
            }
            try await client.execute(uri: "/api/plan", method: .get) { response in
                XCTAssertEqual(try JSONDecoder().decode(TherapyPlan.self, from: Data(buffer: response.body)).sets, 2, "refused plans are not saved")
            }
        }
    }

    func testAnUnknownAPIRouteSaysSoAsJSONWhateverTheMethod() async throws {
        let store = try HistoryStore()
        try await app(store).test(.router) { client in
            for (uri, method) in [("/api/nothing", HTTPRequest.Method.get), ("/api/nothing", .post), ("/api/plan", .delete), ("/api/sessions", .patch), ("/api/trends", .put)] {
                try await client.execute(uri: uri, method: method) { response in
                    XCTAssertEqual(response.status, .notFound, "\(method) \(uri)")
                    XCTAssertEqual(try json(response.body)["error"] as? String, "no such API: \(method) \(uri)")
                }
            }
        }
    }

    func testSessionRoutesAnswer404WithJSONForMissingSessions() async throws {
        let store = try HistoryStore()
        try await app(store).test(.router) { client in
            try await client.execute(uri: "/api/sessions", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual((try json(response.body)["sessions"] as? [Any])?.count, 0)
            }
            for uri in [
                "/api/sessions/7", "/api/sessions/7/frames", "/api/sessions/7/export.csv", "/api/sessions/7/export.json",
                "/api/sessions/abc", "/api/sessions/-1/frames", "/api/nothing",
            ] {
                try await client.execute(uri: uri, method: .get) { response in
                    XCTAssertEqual(response.status, .notFound, uri)
                    XCTAssertNotNil(try json(response.body)["error"] as? String, uri)
                }
            }
            try await client.execute(uri: "/api/trends?days=0", method: .get) { response in
                XCTAssertEqual(response.status, .badRequest)
            }
            try await client.execute(uri: "/api/trends", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual((try json(response.body)["days"] as? [Any])?.count, 0)
            }
        }
    }

    func testSavedSessionIsListedShownAndExported() async throws {
        let store = try HistoryStore()
        let samples = try simulatedSession()
        let (outputs, report, analyzer) = try analyse(samples)
        let recorder = try store.beginSession(
            plan: .standard, source: .file, configuration: analyzer.configuration, frameInterval: analyzer.frameInterval,
            latency: analyzer.latency, input: "test")
        outputs.forEach(recorder.record)
        try recorder.finish(report)
        let id = recorder.id
        try await app(store).test(.router) { client in
            try await client.execute(uri: "/api/sessions", method: .get) { response in
                let rows = try XCTUnwrap(try json(response.body)["sessions"] as? [[String: Any]])
                XCTAssertEqual(rows.count, 1)
                XCTAssertEqual(Set(rows[0].keys), [
                    "id", "started_at", "duration_s", "breaths", "sets", "mean_pressure_cmh2o", "share_in_target", "source", "status",
                ])
                XCTAssertEqual(rows[0]["breaths"] as? Int, 3)
                XCTAssertEqual(rows[0]["source"] as? String, "file")
                XCTAssertNotNil(try? Date((rows[0]["started_at"] as? String) ?? "", strategy: .iso8601))
            }
            try await client.execute(uri: "/api/sessions/\(id)", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                let object = try json(response.body)
                XCTAssertTrue(Set(object.keys).isSuperset(of: ["session", "summary", "breaths", "sets", "plan"]))
                XCTAssertEqual((object["breaths"] as? [Any])?.count, 3)
            }
            try await client.execute(uri: "/api/sessions/\(id)/frames", method: .get) { response in
                let frames = try XCTUnwrap(try json(response.body)["frames"] as? [[Any]])
                XCTAssertEqual(frames.count, try store.frames(id)?.count)
                XCTAssertEqual(frames.first?.count, 4)
            }
            try await client.execute(uri: "/api/sessions/\(id)/export.csv", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(response.headers[.contentType], "text/csv; charset=utf-8")
                XCTAssertEqual(String(buffer: response.body), try store.exportCSV(id))
            }
            try await client.execute(uri: "/api/sessions/\(id)/export.json", method: .get) { response in
                XCTAssertEqual(String(buffer: response.body), try store.exportJSON(id))
            }
            try await client.execute(uri: "/api/trends?days=7", method: .get) { response in
                let days = try XCTUnwrap(try json(response.body)["days"] as? [[String: Any]])
                XCTAssertEqual(days.count, 1)
                XCTAssertEqual(days.first?["breaths"] as? Int, 3)
            }
        }
    }

    func testDashboardFilesAreServedAndTraversalIsRefused() async throws {
        let store = try HistoryStore()
        try await app(store).test(.router) { client in
            for (uri, type) in [("/", "text/html; charset=utf-8"), ("/history", "text/html; charset=utf-8"), ("/sessions/3", "text/html; charset=utf-8")] {
                try await client.execute(uri: uri, method: .get) { response in
                    XCTAssertEqual(response.status, .ok, uri)
                    XCTAssertEqual(response.headers[.contentType], type, uri)
                    XCTAssertTrue(String(buffer: response.body).lowercased().contains("<html"), uri)
                }
            }
            for uri in [
                "/assets/../Package.swift", "/assets/%2e%2e/%2e%2e/Package.swift", "/assets/..%2f..%2fPackage.swift",
                "/assets/nothing.js", "/assets/", "/sessions/abc", "/assets/.hidden", "/../../etc/passwd",
            ] {
                try await client.execute(uri: uri, method: .get) { response in
                    XCTAssertEqual(response.status, .notFound, uri)
                    XCTAssertFalse(String(buffer: response.body).contains("PackageDescription"), uri)
                }
            }
        }
        // Every file of the dashboard is reachable under /assets with its type.
        let files = DashboardFiles()
        let root = try XCTUnwrap(files.root)
        let names = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { !$0.hasPrefix(".") }
        XCTAssertTrue(names.contains("index.html"))
        for name in names {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root.appendingPathComponent(name).path, isDirectory: &isDirectory), !isDirectory.boolValue
            else { continue }
            let response = try files.response(for: [name], underAssets: true)
            XCTAssertEqual(response.status, .ok, name)
        }
        XCTAssertEqual(DashboardFiles.contentTypes["js"], "text/javascript; charset=utf-8")
        XCTAssertEqual(DashboardFiles.contentTypes["svg"], "image/svg+xml")
    }
}

func json(_ buffer: ByteBuffer) throws -> [String: Any] {
    try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any])
}
