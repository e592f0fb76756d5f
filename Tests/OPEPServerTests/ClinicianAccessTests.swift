import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import OPEPHistory
import OPEPKit
import XCTest

@testable import OPEPServer

/// Clinicians sign in with their password and see the patients they follow, and no one else's.
final class ClinicianAccessTests: XCTestCase {
    static let password = "correct horse battery"

    /// The clinic of ``PatientAccessTests`` with its clinician's password set, and a second
    /// clinician following a third patient with a session of her own.
    static func clinic() throws -> (clinic: PatientAccessTests.Clinic, other: Patient, otherSession: Int64) {
        let clinic = try PatientAccessTests.clinic(passwordHash: try ClinicianPassword.hash(password, cost: 4))
        let colleague = try clinic.store.addClinician(username: "j.doe", name: "Jo Doe", passwordHash: try ClinicianPassword.hash("another password", cost: 4))
        let other = try clinic.store.addPatient(name: "Cy", clinician: colleague.id, plan: .standard, token: AccessToken.random().text)
        let s = recordedSession
        let recorder = try clinic.store.beginSession(
            plan: .standard, source: .browser, configuration: s.configuration, frameInterval: s.frameInterval, latency: s.latency,
            input: "test", patient: other.id)
        for output in s.outputs { recorder.record(output) }
        try recorder.finish(s.report)
        return (clinic, other, recorder.id)
    }

    /// Signs in and returns the cookie to send back (`name=value`).
    static func signIn(_ client: some TestClientProtocol, username: String = "m.rossi", password: String = password) async throws -> String? {
        let body = ByteBuffer(string: #"{"username": "\#(username)", "password": "\#(password)"}"#)
        return try await client.execute(uri: "/api/clinic/sign-in", method: .post, body: body) { response in
            guard response.status == .ok else { return nil }
            let cookie = try XCTUnwrap(response.headers[.setCookie])
            let attributes = Set(cookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
            XCTAssertTrue(attributes.isSuperset(of: ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=43200"]), cookie)
            XCTAssertEqual((try json(response.body)["clinician"] as? [String: Any])?["username"] as? String, username)
            return String(cookie.prefix { $0 != ";" })
        }
    }

    func testAClinicianSeesTheirPatientsAdherenceAndSessionsOnly() async throws {
        let (clinic, other, otherSession) = try Self.clinic()
        try await securedApp(clinic.store).test(.router) { client in
            let signedInCookie = try await Self.signIn(client)
            let cookie = try XCTUnwrap(signedInCookie, "signed in")
            let signedIn: HTTPFields = [.cookie: cookie]
            try await client.execute(uri: "/api/clinic/patients", method: .get, headers: signedIn) { response in
                XCTAssertEqual(response.status, .ok)
                let object = try json(response.body)
                XCTAssertEqual((object["clinician"] as? [String: Any])?["name"] as? String, "Maria Rossi")
                let patients = try XCTUnwrap(object["patients"] as? [[String: Any]])
                XCTAssertEqual(patients.compactMap { ($0["patient"] as? [String: Any])?["name"] as? String }, ["Ann", "Bo"])
                let annsWeek = try XCTUnwrap(patients.first?["this_week"] as? [String: Any])
                XCTAssertEqual(annsWeek["sessions"] as? Int, 1)
                XCTAssertEqual(annsWeek["breaths"] as? Int, recordedSession.report.breaths.count)
                XCTAssertEqual((patients.first?["week_before"] as? [String: Any])?["sessions"] as? Int, 0)
                XCTAssertNotNil(patients.first?["last_session"] as? String)
            }
            try await client.execute(uri: "/api/clinic/patients/\(clinic.ann.id)", method: .get, headers: signedIn) { response in
                XCTAssertEqual(response.status, .ok)
                let sessions = try XCTUnwrap(try json(response.body)["sessions"] as? [[String: Any]])
                XCTAssertEqual(sessions.compactMap { $0["id"] as? Int }, [Int(clinic.annSession)])
            }
            for suffix in ["", "/frames", "/export.csv", "/export.json"] {
                try await client.execute(uri: "/api/sessions/\(clinic.annSession)\(suffix)", method: .get, headers: signedIn) { response in
                    XCTAssertEqual(response.status, .ok, "their patient's session\(suffix)")
                }
                for hidden in [otherSession, clinic.ownSession] {
                    try await client.execute(uri: "/api/sessions/\(hidden)\(suffix)", method: .get, headers: signedIn) { response in
                        XCTAssertEqual(response.status, .notFound, "session \(hidden)\(suffix) is not of their patients")
                    }
                }
            }
            try await client.execute(uri: "/api/clinic/patients/\(other.id)", method: .get, headers: signedIn) { response in
                XCTAssertEqual(response.status, .notFound, "a colleague's patient")
                XCTAssertEqual(try json(response.body)["error"] as? String, "no patient \(other.id)")
            }
            try await client.execute(uri: "/api/clinic/patients/\(other.id)/plan", method: .put, headers: signedIn, body: ByteBuffer(string: #"{"sets": 5}"#)) { response in
                XCTAssertEqual(response.status, .notFound)
            }
            XCTAssertEqual(try clinic.store.patient(other.id)?.plan, .standard)
            for (uri, method) in [("/api/sessions", HTTPRequest.Method.get), ("/api/plan", .get), ("/api/plan", .put), ("/api/trends", .get), ("/api/sessions", .post)] {
                try await client.execute(uri: uri, method: method, headers: signedIn, body: ByteBuffer(string: "{}")) { response in
                    XCTAssertEqual(response.status, .forbidden, "\(method) \(uri) is the owner's or a patient's")
                }
            }
        }
    }

    func testAClinicianChangesTheirPatientsPlanAndTheCoachTakesIt() async throws {
        let (clinic, _, _) = try Self.clinic()
        try await securedApp(clinic.store).test(.router) { client in
            let signedInCookie = try await Self.signIn(client)
            let cookie = try XCTUnwrap(signedInCookie)
            var plan = clinic.ann.plan
            plan.target = TargetRange(lowerCmH2O: 15, upperCmH2O: 20)
            plan.minutes = 20
            let body = ByteBuffer(string: try reportJSON(plan, pretty: false))
            try await client.execute(uri: "/api/clinic/patients/\(clinic.ann.id)/plan", method: .put, headers: [.cookie: cookie], body: body) { response in
                XCTAssertEqual(response.status, .ok)
            }
            try await client.execute(uri: "/api/plan", method: .get, headers: [.authorization: "Bearer \(clinic.annToken)"]) { response in
                let taken = try json(response.body)
                XCTAssertEqual(taken["target_low_cmh2o"] as? Double, 15, "Ann's coach takes her new plan")
                XCTAssertEqual(taken["minutes"] as? Double, 20)
            }
            try await client.execute(
                uri: "/api/clinic/patients/\(clinic.ann.id)/plan", method: .put, headers: [.cookie: cookie],
                body: ByteBuffer(string: #"{"sets": 0}"#)
            ) { response in
                XCTAssertEqual(response.status, .badRequest)
                XCTAssertTrue((try json(response.body)["error"] as? String ?? "").contains("sets"))
            }
            XCTAssertEqual(try clinic.store.patient(clinic.ann.id)?.plan, plan, "the refused plan changed nothing")
        }
    }

    func testAClinicianOpensTheirPatientsAdherenceReport() async throws {
        let (clinic, other, _) = try Self.clinic()
        var plan = clinic.ann.plan
        plan.sessionsPerDay = 3
        XCTAssertTrue(try clinic.store.savePlan(plan, forPatient: clinic.ann.id))
        let today = ISO8601DateFormatter.string(from: Date(), timeZone: .current, formatOptions: [.withFullDate])
        try await securedApp(clinic.store).test(.router) { client in
            let report = "/api/clinic/patients/\(clinic.ann.id)/report?from=\(today)&to=\(today)"
            try await client.execute(uri: report, method: .get) { response in
                XCTAssertEqual(response.status, .unauthorized, "not signed in")
            }
            let signedInCookie = try await Self.signIn(client)
            let signedIn: HTTPFields = [.cookie: try XCTUnwrap(signedInCookie)]
            try await client.execute(uri: report, method: .get, headers: signedIn) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(response.headers[.contentType], "text/html; charset=utf-8")
                XCTAssertEqual(response.headers[.contentSecurityPolicy], ClinicAPI.reportPolicy, "its own policy: inline style, no script")
                XCTAssertFalse(ClinicAPI.reportPolicy.contains("script-src"))
                let html = String(buffer: response.body)
                XCTAssertTrue(html.contains("Therapy adherence of Ann, \(today) to \(today)"), html.prefix(300).description)
                XCTAssertTrue(html.contains("1 of 3 planned"), "her one session against her plan of three a day")
                XCTAssertFalse(html.contains("<script"))
            }
            try await client.execute(uri: "/api/clinic/patients/\(other.id)/report?from=\(today)&to=\(today)", method: .get, headers: signedIn) { response in
                XCTAssertEqual(response.status, .notFound, "a colleague's patient")
            }
            for (query, error) in [
                ("to=\(today)", "from is missing: give the day as YYYY-MM-DD"),
                ("from=2026-02-30&to=\(today)", "from wants a day written YYYY-MM-DD, e.g. 2026-11-21, not \"2026-02-30\""),
                ("from=2026-11-02&to=2026-11-01", "from must not be after to"),
                ("from=2024-01-01&to=2026-01-01", "a report covers at most 366 days, not 732"),
            ] {
                try await client.execute(uri: "/api/clinic/patients/\(clinic.ann.id)/report?\(query)", method: .get, headers: signedIn) { response in
                    XCTAssertEqual(response.status, .badRequest, query)
                    XCTAssertEqual(try json(response.body)["error"] as? String, error)
                }
            }
        }
    }

    /// The days of a report are those of the time zone the page sends: a session at 23:30 UTC
    /// falls on the next day in Tokyo.
    func testTheReportsDaysAreThoseOfTheCliniciansTimeZone() async throws {
        let (clinic, _, _) = try Self.clinic()
        let s = recordedSession
        let recorder = try clinic.store.beginSession(
            plan: .standard, source: .browser, configuration: s.configuration, frameInterval: s.frameInterval, latency: s.latency,
            input: "test", startedAt: try Date("2026-11-20T23:30:00Z", strategy: .iso8601), patient: clinic.ann.id)
        for output in s.outputs { recorder.record(output) }
        try recorder.finish(s.report)
        try await securedApp(clinic.store).test(.router) { client in
            let signedInCookie = try await Self.signIn(client)
            let signedIn: HTTPFields = [.cookie: try XCTUnwrap(signedInCookie)]
            for (zone, sessions) in [("Asia/Tokyo", 1), ("UTC", 0), ("America/New_York", 0)] {
                let uri = "/api/clinic/patients/\(clinic.ann.id)/report?from=2026-11-21&to=2026-11-21&tz=\(zone)"
                try await client.execute(uri: uri, method: .get, headers: signedIn) { response in
                    XCTAssertEqual(response.status, .ok, zone)
                    XCTAssertTrue(String(buffer: response.body).contains("\(sessions) of 2 planned"), "\(zone): \(sessions) session")
                }
            }
            let unknown = "/api/clinic/patients/\(clinic.ann.id)/report?from=2026-11-21&to=2026-11-21&tz=Mars/Olympus"
            try await client.execute(uri: unknown, method: .get, headers: signedIn) { response in
                XCTAssertEqual(response.status, .badRequest)
                XCTAssertEqual(try json(response.body)["error"] as? String, "tz wants a time zone such as Europe/Rome, not \"Mars/Olympus\"")
            }
        }
    }

    func testAClinicianChangesTheirPasswordAndTheirOtherSignInsEnd() async throws {
        let (clinic, _, _) = try Self.clinic()
        let newPassword = "a much better passphrase"
        try await securedApp(clinic.store).test(.router) { client in
            let first = try await Self.signIn(client), second = try await Self.signIn(client)
            let here = try XCTUnwrap(first), elsewhere = try XCTUnwrap(second)
            func change(_ current: String, to new: String, cookie: String? = here) async throws -> (HTTPResponse.Status, [String: Any], String?) {
                let body = ByteBuffer(string: try reportJSON(["current": current, "new": new], pretty: false))
                return try await client.execute(
                    uri: "/api/clinic/password", method: .post, headers: cookie.map { [.cookie: $0] } ?? [:], body: body
                ) { response in
                    (response.status, try json(response.body), response.headers[.setCookie].map { String($0.prefix { $0 != ";" }) })
                }
            }
            let anonymous = try await change(Self.password, to: newPassword, cookie: nil)
            XCTAssertEqual(anonymous.0, .unauthorized)
            let wrong = try await change("not my password", to: newPassword)
            XCTAssertEqual(wrong.0, .forbidden)
            XCTAssertEqual(wrong.1["error"] as? String, "the current password is wrong")
            let short = try await change(Self.password, to: "short")
            XCTAssertEqual(short.0, .badRequest)
            XCTAssertEqual(short.1["error"] as? String, "the new password cannot be used: it must be at least 10 characters long")
            XCTAssertFalse((short.1["error"] as? String ?? "").contains("short\""), "the refused password is not repeated")
            let changed = try await change(Self.password, to: newPassword)
            XCTAssertEqual(changed.0, .ok)
            let renewed = try XCTUnwrap(changed.2, "this browser gets a new sign-in")
            for (cookie, status, what) in [(here, HTTPResponse.Status.unauthorized, "the old cookie of this browser"), (elsewhere, .unauthorized, "another sign-in"), (renewed, .ok, "the new cookie")] {
                try await client.execute(uri: "/api/clinic/patients", method: .get, headers: [.cookie: cookie]) { response in
                    XCTAssertEqual(response.status, status, what)
                }
            }
            let withOld = try await Self.signIn(client)
            XCTAssertNil(withOld, "the old password opens nothing")
            let withNew = try await Self.signIn(client, password: newPassword)
            XCTAssertNotNil(withNew, "the new one signs in")
        }
    }

    func testAClinicianArchivesAPatientWhoseTokenThenOpensNothing() async throws {
        let (clinic, other, _) = try Self.clinic()
        try await securedApp(clinic.store).test(.router) { client in
            let signedInCookie = try await Self.signIn(client)
            let signedIn: HTTPFields = [.cookie: try XCTUnwrap(signedInCookie)]
            let annsCoach: HTTPFields = [.authorization: "Bearer \(clinic.annToken)"]
            func names(_ key: String) async throws -> [String] {
                try await client.execute(uri: "/api/clinic/patients", method: .get, headers: signedIn) { response in
                    let list = try XCTUnwrap(try json(response.body)[key] as? [[String: Any]])
                    return list.compactMap { ($0["patient"] as? [String: Any])?["name"] as? String }
                }
            }
            try await client.execute(uri: "/api/clinic/patients/\(clinic.ann.id)/archive", method: .post, headers: signedIn) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertNotNil(try json(response.body)["archived_at"] as? String)
            }
            try await client.execute(uri: "/api/plan", method: .get, headers: annsCoach) { response in
                XCTAssertEqual(response.status, .unauthorized, "an archived patient's token opens nothing")
            }
            let following = try await names("patients"), archived = try await names("archived")
            XCTAssertEqual(following, ["Bo"])
            XCTAssertEqual(archived, ["Ann"])
            try await client.execute(uri: "/api/sessions/\(clinic.annSession)", method: .get, headers: signedIn) { response in
                XCTAssertEqual(response.status, .ok, "her clinician still reads her sessions")
            }
            try await client.execute(uri: "/api/clinic/patients/\(other.id)/archive", method: .post, headers: signedIn) { response in
                XCTAssertEqual(response.status, .notFound, "a colleague's patient")
            }
            XCTAssertNil(try clinic.store.patient(other.id)?.archivedAt)
            try await client.execute(uri: "/api/clinic/patients/\(clinic.ann.id)/restore", method: .post, headers: signedIn) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertNil(try json(response.body)["archived_at"])
            }
            try await client.execute(uri: "/api/plan", method: .get, headers: annsCoach) { response in
                XCTAssertEqual(response.status, .ok, "followed again, her token opens her coach")
            }
            try await client.execute(uri: "/api/clinic/patients/\(clinic.ann.id)/archive", method: .post) { response in
                XCTAssertEqual(response.status, .unauthorized, "not signed in")
            }
        }
    }

    func testAClinicianAddsAPatientAndGivesThemANewToken() async throws {
        let (clinic, other, _) = try Self.clinic()
        try await securedApp(clinic.store).test(.router) { client in
            let newPatient = ByteBuffer(string: #"{"name": "Di Doyle"}"#)
            try await client.execute(uri: "/api/clinic/patients", method: .post, body: newPatient) { response in
                XCTAssertEqual(response.status, .unauthorized, "not signed in")
            }
            let signedInCookie = try await Self.signIn(client)
            let signedIn: HTTPFields = [.cookie: try XCTUnwrap(signedInCookie)]
            let (di, token) = try await client.execute(uri: "/api/clinic/patients", method: .post, headers: signedIn, body: newPatient) { response in
                XCTAssertEqual(response.status, .created)
                XCTAssertEqual(response.headers[.cacheControl], "no-store")
                let object = try json(response.body)
                let patient = try XCTUnwrap(object["patient"] as? [String: Any])
                XCTAssertEqual(patient["name"] as? String, "Di Doyle")
                return (Int64(try XCTUnwrap(patient["id"] as? Int)), try XCTUnwrap(object["token"] as? String))
            }
            XCTAssertEqual(try clinic.store.patient(di)?.clinicianID, clinic.ann.clinicianID, "hers")
            XCTAssertEqual(try clinic.store.patient(di)?.plan, .standard)
            try await client.execute(uri: "/api/plan", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                XCTAssertEqual(response.status, .ok, "the token opens Di's coach")
            }
            for (body, why) in [(#"{"name": "  "}"#, "an empty name"), (#"{"nom": "Di"}"#, "no name"), ("Di", "not JSON")] {
                try await client.execute(uri: "/api/clinic/patients", method: .post, headers: signedIn, body: ByteBuffer(string: body)) { response in
                    XCTAssertEqual(response.status, .badRequest, why)
                    XCTAssertNotNil(try json(response.body)["error"] as? String, why)
                }
            }

            let renewed = try await client.execute(uri: "/api/clinic/patients/\(clinic.ann.id)/token", method: .post, headers: signedIn) { response in
                XCTAssertEqual(response.status, .ok)
                return try XCTUnwrap(try json(response.body)["token"] as? String)
            }
            try await client.execute(uri: "/api/plan", method: .get, headers: [.authorization: "Bearer \(clinic.annToken)"]) { response in
                XCTAssertEqual(response.status, .unauthorized, "Ann's old token opens nothing")
            }
            try await client.execute(uri: "/api/plan", method: .get, headers: [.authorization: "Bearer \(renewed)"]) { response in
                XCTAssertEqual(response.status, .ok, "her new one opens her coach")
            }
            try await client.execute(uri: "/api/clinic/patients/\(other.id)/token", method: .post, headers: signedIn) { response in
                XCTAssertEqual(response.status, .notFound, "a colleague's patient")
            }
        }
    }

    func testAClinicianHandsAPatientOverToAColleague() async throws {
        let (clinic, other, _) = try Self.clinic()
        try await securedApp(clinic.store).test(.router) { client in
            let signedInCookie = try await Self.signIn(client)
            let signedIn: HTTPFields = [.cookie: try XCTUnwrap(signedInCookie)]
            try await client.execute(uri: "/api/clinic/colleagues", method: .get, headers: signedIn) { response in
                XCTAssertEqual(response.status, .ok)
                let colleagues = try XCTUnwrap(try json(response.body)["colleagues"] as? [[String: Any]])
                XCTAssertEqual(colleagues.compactMap { $0["username"] as? String }, ["j.doe"], "everyone but oneself")
                XCTAssertNil(colleagues.first?["password_hash"])
            }
            let handOver = ByteBuffer(string: #"{"username": "j.doe"}"#)
            try await client.execute(uri: "/api/clinic/patients/\(other.id)/clinician", method: .post, headers: signedIn, body: handOver) { response in
                XCTAssertEqual(response.status, .notFound, "a colleague's patient is not one's own to hand over")
            }
            for (body, why) in [(#"{"username": "nobody"}"#, "no such clinician"), ("j.doe", "not JSON")] {
                try await client.execute(
                    uri: "/api/clinic/patients/\(clinic.bo.id)/clinician", method: .post, headers: signedIn, body: ByteBuffer(string: body)
                ) { response in
                    XCTAssertEqual(response.status, .badRequest, why)
                    XCTAssertNotNil(try json(response.body)["error"] as? String, why)
                }
            }
            try await client.execute(uri: "/api/clinic/patients/\(clinic.bo.id)/clinician", method: .post, headers: signedIn, body: handOver) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(try json(response.body)["clinician_id"] as? Int, Int(other.clinicianID))
            }
            try await client.execute(uri: "/api/clinic/patients/\(clinic.bo.id)", method: .get, headers: signedIn) { response in
                XCTAssertEqual(response.status, .notFound, "handed over, Bo is no longer hers")
            }
            let colleagueCookie = try await Self.signIn(client, username: "j.doe", password: "another password")
            try await client.execute(uri: "/api/clinic/patients/\(clinic.bo.id)", method: .get, headers: [.cookie: try XCTUnwrap(colleagueCookie)]) { response in
                XCTAssertEqual(response.status, .ok, "her colleague follows Bo now")
            }
            try await client.execute(uri: "/api/plan", method: .get, headers: [.authorization: "Bearer \(clinic.boToken)"]) { response in
                XCTAssertEqual(response.status, .ok, "Bo's coach goes on with his token")
            }
        }
    }

    func testAClinicianDeletesAnArchivedPatientWithTheirSessions() async throws {
        let (clinic, other, otherSession) = try Self.clinic()
        try await securedApp(clinic.store).test(.router) { client in
            let signedInCookie = try await Self.signIn(client)
            let signedIn: HTTPFields = [.cookie: try XCTUnwrap(signedInCookie)]
            try await client.execute(uri: "/api/clinic/patients/\(clinic.ann.id)", method: .delete, headers: signedIn) { response in
                XCTAssertEqual(response.status, .conflict, "a followed patient is archived first")
                XCTAssertTrue((try json(response.body)["error"] as? String ?? "").contains("archive"))
            }
            try clinic.store.setArchived(true, patient: other.id)
            try await client.execute(uri: "/api/clinic/patients/\(other.id)", method: .delete, headers: signedIn) { response in
                XCTAssertEqual(response.status, .notFound, "a colleague's patient")
            }
            try await client.execute(uri: "/api/clinic/patients/\(clinic.ann.id)/archive", method: .post, headers: signedIn) { response in
                XCTAssertEqual(response.status, .ok)
            }
            try await client.execute(uri: "/api/clinic/patients/\(clinic.ann.id)", method: .delete) { response in
                XCTAssertEqual(response.status, .unauthorized, "not signed in")
            }
            try await client.execute(uri: "/api/clinic/patients/\(clinic.ann.id)", method: .delete, headers: signedIn) { response in
                XCTAssertEqual(response.status, .ok)
                let deleted = try XCTUnwrap(try json(response.body)["deleted"] as? [String: Any])
                XCTAssertEqual(deleted["patient"] as? Int, Int(clinic.ann.id))
                XCTAssertEqual(deleted["sessions"] as? Int, 1)
                XCTAssertEqual(deleted["audio_left"] as? Int, 0)
            }
            try await client.execute(uri: "/api/sessions/\(clinic.annSession)", method: .get, headers: signedIn) { response in
                XCTAssertEqual(response.status, .notFound, "her session went with her")
            }
            try await client.execute(uri: "/api/clinic/patients/\(clinic.ann.id)", method: .delete, headers: signedIn) { response in
                XCTAssertEqual(response.status, .notFound)
            }
            XCTAssertNotNil(try clinic.store.session(otherSession), "no one else's session")
            XCTAssertNotNil(try clinic.store.patient(clinic.bo.id))
        }
    }

    func testTheClinicPageNeedsNoTokenAndTheOtherPagesStillDo() async throws {
        let (clinic, _, _) = try Self.clinic()
        try await securedApp(clinic.store).test(.router) { client in
            try await client.execute(uri: "/clinic", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(response.headers[.contentType], "text/html; charset=utf-8")
                XCTAssertTrue(String(buffer: response.body).contains("/assets/clinic.js"))
            }
            for uri in ["/", "/history", "/sessions/\(clinic.annSession)"] {
                try await client.execute(uri: uri, method: .get) { response in
                    XCTAssertEqual(response.status, .unauthorized, "\(uri) without a token or a sign-in")
                }
            }
            let signedInCookie = try await Self.signIn(client)
            let cookie = try XCTUnwrap(signedInCookie)
            try await client.execute(uri: "/sessions/\(clinic.annSession)", method: .get, headers: [.cookie: cookie]) { response in
                XCTAssertEqual(response.status, .ok, "a session's page, for a signed-in clinician")
            }
        }
    }

    func testWrongPasswordsAreRefusedCountedAndSigningOutEndsTheSignIn() async throws {
        let (clinic, _, _) = try Self.clinic()
        try await securedApp(clinic.store, { $0.limits.maxFailedTokens = 3 }).test(.router) { client in
            try await client.execute(uri: "/api/clinic/patients", method: .get) { response in
                XCTAssertEqual(response.status, .unauthorized)
                XCTAssertEqual(try json(response.body)["error"] as? String, "sign in as a clinician first")
            }
            let firstCookie = try await Self.signIn(client)
            let first = try XCTUnwrap(firstCookie)
            try await client.execute(uri: "/api/clinic/sign-out", method: .post, headers: [.cookie: first]) { response in
                XCTAssertEqual(response.status, .noContent)
                XCTAssertTrue(response.headers[.setCookie]?.contains("Max-Age=0") ?? false)
            }
            try await client.execute(uri: "/api/clinic/patients", method: .get, headers: [.cookie: first]) { response in
                XCTAssertEqual(response.status, .unauthorized, "signed out")
            }
            try await client.execute(uri: "/api/sessions/\(clinic.annSession)", method: .get, headers: [.cookie: first]) { response in
                XCTAssertEqual(response.status, .unauthorized, "a forgotten sign-in opens nothing")
            }

            let signedInCookie = try await Self.signIn(client)
            let cookie = try XCTUnwrap(signedInCookie)
            let wrongPassword = try await Self.signIn(client, password: "wrong password")
            XCTAssertNil(wrongPassword, "a wrong password")
            let unknown = try await Self.signIn(client, username: "nobody")
            XCTAssertNil(unknown, "an unknown clinician")
            let colleague = try await Self.signIn(client, username: "j.doe")
            XCTAssertNil(colleague, "a colleague's name with one's own password")
            try await client.execute(
                uri: "/api/clinic/sign-in", method: .post, body: ByteBuffer(string: #"{"username": "m.rossi", "password": "\#(Self.password)"}"#)
            ) { response in
                XCTAssertEqual(response.status, .tooManyRequests, "three wrong passwords lock the address out, the right one too")
                XCTAssertNotNil(response.headers[.retryAfter])
            }
            try await client.execute(uri: "/api/clinic/patients", method: .get, headers: [.cookie: cookie]) { response in
                XCTAssertEqual(response.status, .ok, "a sign-in made before still holds")
            }
        }
    }
}
