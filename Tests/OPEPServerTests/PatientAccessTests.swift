import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWebSocket
import Logging
import OPEPHistory
import OPEPKit
import TestSessions
import XCTest

@testable import OPEPServer

/// A patient's own token (`opep clinic add-patient`) opens their plan and their sessions, and no
/// one else's; the server's token still opens the whole history.
final class PatientAccessTests: XCTestCase {
    struct Clinic {
        var store: HistoryStore
        var ann: Patient
        var bo: Patient
        var annToken: String
        var boToken: String
        /// Ann's session, Bo's, and one of the history's owner.
        var annSession: Int64
        var boSession: Int64
        var ownSession: Int64
    }

    /// - Parameter passwordHash: the clinician's.
    static func clinic(passwordHash: String = "h") throws -> Clinic {
        let store = try HistoryStore()
        let clinician = try store.addClinician(username: "m.rossi", name: "Maria Rossi", passwordHash: passwordHash)
        var plan = TherapyPlan.standard
        plan.target = TargetRange(lowerCmH2O: 12, upperCmH2O: 18)
        plan.sets = 4
        let annToken = AccessToken.random().text, boToken = AccessToken.random().text
        let ann = try store.addPatient(name: "Ann", clinician: clinician.id, plan: plan, token: annToken)
        let bo = try store.addPatient(name: "Bo", clinician: clinician.id, plan: .standard, token: boToken)
        func record(_ patient: Int64?, at seconds: Double) throws -> Int64 {
            let s = recordedSession
            let recorder = try store.beginSession(
                plan: .standard, source: .browser, configuration: s.configuration, frameInterval: s.frameInterval, latency: s.latency,
                input: "test", startedAt: Date().addingTimeInterval(seconds), patient: patient)
            for output in s.outputs { recorder.record(output) }
            try recorder.finish(s.report)
            return recorder.id
        }
        return Clinic(
            store: store, ann: ann, bo: bo, annToken: annToken, boToken: boToken,
            annSession: try record(ann.id, at: -300), boSession: try record(bo.id, at: -200), ownSession: try record(nil, at: -100))
    }

    func testAPatientsTokenOpensTheirPlanAndSessionsOnly() async throws {
        for secured in [true, false] {
            let clinic = try Self.clinic()
            let app = try securedApp(clinic.store) { if !secured { $0.access = nil } }
            try await app.test(.router) { client in
                let ann: HTTPFields = [.authorization: "Bearer \(clinic.annToken)"]
                try await client.execute(uri: "/api/plan", method: .get, headers: ann) { response in
                    XCTAssertEqual(response.status, .ok)
                    let plan = try json(response.body)
                    XCTAssertEqual(plan["target_low_cmh2o"] as? Double, 12, "Ann's own plan")
                    XCTAssertEqual(plan["sets"] as? Int, 4)
                    XCTAssertEqual(plan["prescribed_by"] as? String, "Maria Rossi")
                    XCTAssertNotNil(plan["device"] as? [String: Any])
                }
                try await client.execute(uri: "/api/plan", method: .put, headers: ann, body: ByteBuffer(string: #"{"sets": 9}"#)) { response in
                    XCTAssertEqual(response.status, .forbidden, "the plan is the physiotherapist's to change")
                    XCTAssertNotNil(try json(response.body)["error"] as? String)
                }
                XCTAssertEqual(try clinic.store.patient(clinic.ann.id)?.plan.sets, 4)
                try await client.execute(uri: "/api/sessions", method: .get, headers: ann) { response in
                    let rows = try XCTUnwrap(try json(response.body)["sessions"] as? [[String: Any]])
                    XCTAssertEqual(rows.compactMap { $0["id"] as? Int }, [Int(clinic.annSession)])
                }
                for suffix in ["", "/frames", "/export.csv", "/export.json"] {
                    try await client.execute(uri: "/api/sessions/\(clinic.annSession)\(suffix)", method: .get, headers: ann) { response in
                        XCTAssertEqual(response.status, .ok, "Ann's own session\(suffix)")
                    }
                    for other in [clinic.boSession, clinic.ownSession] {
                        try await client.execute(uri: "/api/sessions/\(other)\(suffix)", method: .get, headers: ann) { response in
                            XCTAssertEqual(response.status, .notFound, "session \(other)\(suffix) is not Ann's")
                            XCTAssertEqual(try json(response.body)["error"] as? String, "no session \(other)", "as for one that does not exist")
                        }
                    }
                }
                try await client.execute(uri: "/api/trends?days=7", method: .get, headers: ann) { response in
                    let days = try XCTUnwrap(try json(response.body)["days"] as? [[String: Any]])
                    XCTAssertEqual(days.compactMap { $0["sessions"] as? Int }.reduce(0, +), 1)
                }
                let whole: HTTPFields = secured ? bearer : [:]
                try await client.execute(uri: "/api/sessions", method: .get, headers: whole) { response in
                    let rows = try XCTUnwrap(try json(response.body)["sessions"] as? [[String: Any]])
                    XCTAssertEqual(rows.count, 3, "the server's own token opens the whole history")
                }
                try await client.execute(uri: "/api/plan", method: .get, headers: whole) { response in
                    let plan = try json(response.body)
                    XCTAssertEqual(plan["target_low_cmh2o"] as? Double, 10, "the history's own plan")
                    XCTAssertNil(plan["prescribed_by"], "nobody prescribed the history's own plan")
                }
            }
        }
    }

    func testAPatientsUploadIsSavedAsTheirs() async throws {
        let clinic = try Self.clinic()
        let document = try reportJSON(try ImportRouteTests.document(), pretty: false)
        try await securedApp(clinic.store).test(.router) { client in
            let ann: HTTPFields = [.authorization: "Bearer \(clinic.annToken)"]
            let annsUpload = try await client.execute(uri: "/api/sessions", method: .post, headers: ann, body: ByteBuffer(string: document)) { response in
                XCTAssertEqual(response.status, .created)
                return try XCTUnwrap(try json(response.body)["session_id"] as? Int)
            }
            try await client.execute(uri: "/api/sessions", method: .post, headers: ann, body: ByteBuffer(string: document)) { response in
                XCTAssertEqual(response.status, .ok, "the same upload again is the same session")
                XCTAssertEqual(try json(response.body)["session_id"] as? Int, annsUpload)
            }
            let bo: HTTPFields = [.authorization: "Bearer \(clinic.boToken)"]
            try await client.execute(uri: "/api/sessions", method: .post, headers: bo, body: ByteBuffer(string: document)) { response in
                XCTAssertEqual(response.status, .created, "the same document from another patient is their session, not a look at Ann's")
                XCTAssertNotEqual(try json(response.body)["session_id"] as? Int, annsUpload)
            }
            XCTAssertTrue(try clinic.store.session(Int64(annsUpload), belongsTo: clinic.ann.id))
            XCTAssertEqual(try clinic.store.sessions(patient: clinic.ann.id).count, 2)
            XCTAssertEqual(try clinic.store.sessions(patient: clinic.bo.id).count, 2)
            let stored = try XCTUnwrap(try clinic.store.session(Int64(annsUpload)))
            XCTAssertEqual(stored.plan.sets, clinic.ann.plan.sets, "saved with Ann's plan (its target and device as the document was analysed)")
        }
    }

    func testAPatientsTokenInTheAddressBecomesTheirCookie() async throws {
        let clinic = try Self.clinic()
        try await securedApp(clinic.store).test(.router) { client in
            let cookie = try await client.execute(uri: "/history?token=\(clinic.annToken)", method: .get) { response in
                XCTAssertEqual(response.status, .seeOther)
                XCTAssertEqual(response.headers[.location], "/history")
                let cookie = try XCTUnwrap(response.headers[.setCookie])
                XCTAssertTrue(cookie.hasPrefix("opep_token=\(clinic.annToken);"), cookie)
                return String(cookie.prefix { $0 != ";" })
            }
            try await client.execute(uri: "/api/sessions", method: .get, headers: [.cookie: cookie]) { response in
                let rows = try XCTUnwrap(try json(response.body)["sessions"] as? [[String: Any]])
                XCTAssertEqual(rows.compactMap { $0["id"] as? Int }, [Int(clinic.annSession)])
            }
            let unknown = AccessToken.random().text
            try await client.execute(uri: "/api/sessions", method: .get, headers: [.authorization: "Bearer \(unknown)"]) { response in
                XCTAssertEqual(response.status, .unauthorized, "a token no patient has")
            }
        }
    }

    func testAPatientsLiveSessionFollowsTheirPlanAndIsSavedAsTheirs() async throws {
        let clinic = try Self.clinic()
        var configuration = ServerConfiguration(port: 0)
        configuration.access = AccessPolicy(token: testToken, secureCookie: false)
        configuration.limits.messagesPerSecond = 10_000
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let app = try buildApplication(configuration, store: clinic.store, logger: logger)
        try await app.test(.live) { client in
            let headers: HTTPFields = [.authorization: "Bearer \(clinic.annToken)"]
            let close = try await client.ws("/live", configuration: .init(maxFrameSize: 1 << 20, additionalHeaders: headers)) { inbound, outbound, _ in
                let messages = try await streamSession(inbound, outbound, chunks(LiveTests.samples))
                XCTAssertNotNil(messages.last { $0["type"] as? String == "summary" })
            }
            XCTAssertEqual(close?.closeCode, .normalClosure)
        }
        let theirs = try clinic.store.sessions(patient: clinic.ann.id)
        XCTAssertEqual(theirs.count, 2, "the live session is Ann's")
        let live = try XCTUnwrap(theirs.first { $0.id != clinic.annSession })
        XCTAssertEqual(try clinic.store.session(live.id)?.plan, clinic.ann.plan, "analysed with Ann's plan")
    }

    /// A patient archived while their session runs: it ends at the next status (within a second),
    /// saved up to there with a warning, and the patient is told why.
    func testArchivingAPatientEndsTheirLiveSession() throws {
        let clinic = try Self.clinic()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        var session = LiveSession(
            configuration: ServerConfiguration(port: 0), store: clinic.store, gate: SessionGate(limit: 2), logger: logger, patient: clinic.ann)
        let start = ContinuousClock.now
        session.receive(text: startMessage, now: start)
        let messages = chunks(LiveTests.samples)
        func send(_ index: Int) {
            messages[index].withUnsafeReadableBytes { session.receive(binary: $0, now: start + .milliseconds(100 * index)) }
        }
        for index in 0..<20 { send(index) }
        XCTAssertFalse(session.isEnded)
        let id = try XCTUnwrap(session.sessionID)
        _ = session.takeOutbox()

        try clinic.store.setArchived(true, patient: clinic.ann.id)
        var index = 20
        while !session.isEnded, index < messages.count {
            send(index)
            index += 1
        }
        XCTAssertLessThanOrEqual(index - 20, 11, "ended at the next status, a second at most")
        XCTAssertTrue(session.shouldClose)
        let outbox = session.takeOutbox().compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertTrue(outbox.contains { ($0["message"] as? String)?.contains("ended your therapy") == true }, "\(outbox)")
        XCTAssertEqual(outbox.last?["type"] as? String, "summary")
        let saved = try XCTUnwrap(try clinic.store.session(id))
        XCTAssertEqual(saved.session.status, .complete)
        let warnings = try XCTUnwrap(try clinic.store.exportAnalysis(id)).settings.warnings
        XCTAssertTrue(warnings.contains { $0.contains("archived during the session") }, "\(warnings)")
    }
}

/// A short analysed session to record into histories.
let recordedSession: (configuration: SessionAnalyzer.Configuration, frameInterval: Double, latency: Double, outputs: [SessionOutput], report: SessionReport) = {
    let (outputs, report, analyzer) = try! analyse(try! simulatedSession(breaths: 2))
    return (analyzer.configuration, analyzer.frameInterval, analyzer.latency, outputs, report)
}()
