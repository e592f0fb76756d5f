import Foundation
import OPEPKit
import XCTest

@testable import OPEPHistory

/// Clinicians and their patients in the history, on SQLite and on PostgreSQL.
final class ClinicStoreTests: XCTestCase {
    private func record(into store: HistoryStore, patient: Int64?, startedAt: Date = Date()) throws -> Int64 {
        let s = HistoryStoreTests.session
        let recorder = try store.beginSession(
            plan: .standard, source: .browser, configuration: s.analyzer.configuration, frameInterval: s.analyzer.frameInterval,
            latency: s.analyzer.latency, input: "test stream", startedAt: startedAt, patient: patient)
        for output in s.outputs { recorder.record(output) }
        try recorder.finish(s.report)
        return recorder.id
    }

    func testCliniciansAndPatientsAreStoredWithTheirPlansAndFoundByToken() throws {
        try eachStore { store in
            let clinician = try store.addClinician(username: "m.rossi", name: " Maria Rossi ", passwordHash: "$2b$12$hash")
            XCTAssertEqual(clinician.name, "Maria Rossi")
            var plan = TherapyPlan.standard
            plan.target = TargetRange(lowerCmH2O: 12, upperCmH2O: 18)
            let patient = try store.addPatient(name: "Ann", clinician: clinician.id, plan: plan, token: "token-of-ann-0123456789abcdefghij")
            let other = try store.addPatient(name: "Bo", clinician: clinician.id, plan: .standard, token: "token-of-bo-0123456789abcdefghijk")

            XCTAssertEqual(try store.clinicians(), [clinician])
            XCTAssertEqual(try store.clinician(username: "m.rossi")?.passwordHash, "$2b$12$hash")
            XCTAssertNil(try store.clinician(username: "nobody"))
            XCTAssertEqual(try store.patients(of: clinician.id).map(\.name), ["Ann", "Bo"])
            XCTAssertEqual(try store.patient(patient.id)?.plan.target, plan.target)
            XCTAssertEqual(try store.patient(presenting: "token-of-ann-0123456789abcdefghij")?.id, patient.id)
            XCTAssertEqual(try store.patient(presenting: "token-of-bo-0123456789abcdefghijk")?.id, other.id)
            XCTAssertNil(try store.patient(presenting: "token-of-ann-0123456789abcdefghiJ"))

            plan.target = TargetRange(lowerCmH2O: 14, upperCmH2O: 20)
            XCTAssertTrue(try store.savePlan(plan, forPatient: patient.id))
            XCTAssertEqual(try store.patient(patient.id)?.plan.target, plan.target)
            XCTAssertFalse(try store.savePlan(plan, forPatient: 999))
            XCTAssertEqual(try store.plan(), .standard, "a patient's plan is not the personal history's")
        }
    }

    func testAnArchivedPatientsTokenOpensNothingAndTheirSessionsStay() throws {
        try eachStore { store in
            let clinician = try store.addClinician(username: "m.rossi", name: "Maria Rossi", passwordHash: "h")
            let ann = try store.addPatient(name: "Ann", clinician: clinician.id, plan: .standard, token: "token-of-ann-0123456789abcdefghij")
            let bo = try store.addPatient(name: "Bo", clinician: clinician.id, plan: .standard, token: "token-of-bo-0123456789abcdefghijk")
            let session = try record(into: store, patient: ann.id)
            let archivedAt = Date(timeIntervalSince1970: 1_795_000_000)

            XCTAssertTrue(try store.setArchived(true, patient: ann.id, now: archivedAt))
            XCTAssertTrue(try store.setArchived(true, patient: ann.id, now: archivedAt.addingTimeInterval(3600)))
            XCTAssertEqual(try store.patient(ann.id)?.archivedAt, HistoryStore.iso8601(archivedAt), "archived once, at the first time")
            XCTAssertNil(try store.patient(presenting: "token-of-ann-0123456789abcdefghij"), "an archived patient's token opens nothing")
            XCTAssertEqual(try store.patient(presenting: "token-of-bo-0123456789abcdefghijk")?.id, bo.id)
            XCTAssertEqual(try store.patients(of: clinician.id, archived: false).map(\.name), ["Bo"])
            XCTAssertEqual(try store.patients(of: clinician.id, archived: true).map(\.name), ["Ann"])
            XCTAssertEqual(try store.patients(of: clinician.id).map(\.name), ["Ann", "Bo"])
            XCTAssertEqual(try store.sessions(patient: ann.id).map(\.id), [session], "her sessions stay")
            XCTAssertFalse(try store.setArchived(true, patient: 999))

            XCTAssertTrue(try store.setArchived(false, patient: ann.id))
            XCTAssertNil(try store.patient(ann.id)?.archivedAt)
            XCTAssertEqual(try store.patient(presenting: "token-of-ann-0123456789abcdefghij")?.id, ann.id, "followed again")
        }
    }

    func testAPatientIsHandedOverWithTheirSessionsPlanAndToken() throws {
        try eachStore { store in
            let clinician = try store.addClinician(username: "m.rossi", name: "Maria Rossi", passwordHash: "h")
            let colleague = try store.addClinician(username: "j.doe", name: "Jo Doe", passwordHash: "h")
            var plan = TherapyPlan.standard
            plan.sets = 3
            let ann = try store.addPatient(name: "Ann", clinician: clinician.id, plan: plan, token: "token-of-ann-0123456789abcdefghij")
            let session = try record(into: store, patient: ann.id)

            XCTAssertTrue(try store.handOver(patient: ann.id, to: colleague.id))
            XCTAssertEqual(try store.patients(of: clinician.id), [])
            XCTAssertEqual(try store.patients(of: colleague.id).map(\.id), [ann.id])
            XCTAssertEqual(try store.patient(presenting: "token-of-ann-0123456789abcdefghij")?.clinicianID, colleague.id, "her token still opens her coach")
            XCTAssertEqual(try store.patient(ann.id)?.plan, plan)
            XCTAssertEqual(try store.sessions(patient: ann.id).map(\.id), [session])
            XCTAssertTrue(try store.session(session, followedBy: colleague.id))
            XCTAssertFalse(try store.session(session, followedBy: clinician.id), "her former clinician no longer reads her sessions")
            XCTAssertFalse(try store.handOver(patient: 999, to: colleague.id))
            XCTAssertThrowsError(try store.handOver(patient: ann.id, to: 999)) { XCTAssertEqual(($0 as? ClinicRecordError)?.field, "clinician") }
            XCTAssertEqual(try store.patient(ann.id)?.clinicianID, colleague.id)
        }
    }

    func testOnlyAnArchivedPatientIsDeletedAndWithEverySessionOfTheirs() throws {
        try eachStore { store in
            let clinician = try store.addClinician(username: "m.rossi", name: "Maria Rossi", passwordHash: "h")
            let ann = try store.addPatient(name: "Ann", clinician: clinician.id, plan: .standard, token: "token-of-ann-0123456789abcdefghij")
            let bo = try store.addPatient(name: "Bo", clinician: clinician.id, plan: .standard, token: "token-of-bo-0123456789abcdefghijk")
            let annSessions = [try record(into: store, patient: ann.id), try record(into: store, patient: ann.id)]
            let bosSession = try record(into: store, patient: bo.id)
            let own = try record(into: store, patient: nil)
            let audio = (NSTemporaryDirectory() as NSString).appendingPathComponent("opep-delete-\(UUID().uuidString).wav")
            XCTAssertTrue(FileManager.default.createFile(atPath: audio, contents: Data([1, 2, 3])))
            try store.setAudioPath(audio, forSession: annSessions[1])

            XCTAssertEqual(try store.deletePatient(ann.id), .notArchived)
            XCTAssertEqual(try store.sessions(patient: ann.id).count, 2, "a followed patient keeps everything")
            try store.setArchived(true, patient: ann.id)
            let recording = try store.beginSession(
                plan: .standard, source: .browser, configuration: HistoryStoreTests.session.analyzer.configuration,
                frameInterval: 0.01, latency: 0, input: "still going", patient: ann.id)
            XCTAssertEqual(try store.deletePatient(ann.id), .stillRecording(session: recording.id))
            try recording.finish(HistoryStoreTests.session.report, status: .interrupted)

            XCTAssertEqual(try store.deletePatient(ann.id), .deleted(sessions: 3, audioLeft: []))
            XCTAssertNil(try store.patient(ann.id))
            XCTAssertNil(try store.patient(presenting: "token-of-ann-0123456789abcdefghij"))
            XCTAssertFalse(FileManager.default.fileExists(atPath: audio), "the audio kept for her went with her")
            for id in annSessions + [recording.id] {
                XCTAssertNil(try store.session(id), "session \(id)")
                XCTAssertNil(try store.frames(id), "session \(id)'s frames")
            }
            XCTAssertEqual(try store.sessions().map(\.id), [own, bosSession], "no one else's sessions")
            XCTAssertEqual(try store.patients().map(\.name), ["Bo"])
            XCTAssertEqual(try store.deletePatient(ann.id), .noSuchPatient)
        }
    }

    func testTheTokenIsKeptOnlyAsItsDigest() throws {
        let store = try HistoryStore()
        let clinician = try store.addClinician(username: "c", name: "C", passwordHash: "h")
        let token = "a-secret-token-0123456789abcdefghij"
        try store.addPatient(name: "P", clinician: clinician.id, plan: .standard, token: token)
        let stored: [String] = try store.database.read { db in try db.rows("SELECT token_hash FROM patients", []).map { try $0.get("token_hash") } }
        XCTAssertEqual(stored, [SHA256.hex(of: Array(token.utf8))])
        XCTAssertFalse(stored[0].contains(token))
    }

    func testWhatCannotBeStoredIsRefusedNamingTheField() throws {
        try eachStore { store in
            let clinician = try store.addClinician(username: "c1", name: "One", passwordHash: "h")
            func refusal(_ work: () throws -> Void) -> ClinicRecordError? {
                do {
                    try work()
                    return nil
                } catch {
                    return error as? ClinicRecordError
                }
            }
            XCTAssertEqual(refusal { try store.addClinician(username: "c1", name: "Again", passwordHash: "h") }?.field, "username")
            XCTAssertEqual(refusal { try store.addClinician(username: "Upper", name: "U", passwordHash: "h") }?.field, "username")
            XCTAssertEqual(refusal { try store.addClinician(username: "", name: "U", passwordHash: "h") }?.field, "username")
            XCTAssertEqual(refusal { try store.addClinician(username: "c2", name: "  ", passwordHash: "h") }?.field, "name")
            XCTAssertEqual(refusal { try store.addClinician(username: "c2", name: "Tab\there", passwordHash: "h") }?.field, "name")
            XCTAssertEqual(
                refusal { try store.addPatient(name: "P", clinician: clinician.id + 1, plan: .standard, token: "t-0123456789") }?.field,
                "clinician")
            try store.addPatient(name: "P", clinician: clinician.id, plan: .standard, token: "t-0123456789")
            XCTAssertEqual(refusal { try store.addPatient(name: "Q", clinician: clinician.id, plan: .standard, token: "t-0123456789") }?.field, "token")
            XCTAssertEqual(try store.clinicians().count, 1)
            XCTAssertEqual(try store.patients().count, 1)
        }
    }

    func testSessionsBelongToTheirPatient() throws {
        try eachStore { store in
            let clinician = try store.addClinician(username: "c", name: "C", passwordHash: "h")
            let ann = try store.addPatient(name: "Ann", clinician: clinician.id, plan: .standard, token: "ann-0123456789abcdef")
            let bo = try store.addPatient(name: "Bo", clinician: clinician.id, plan: .standard, token: "bo-0123456789abcdefg")
            let first = try record(into: store, patient: ann.id, startedAt: Date(timeIntervalSince1970: 1_800_000_000))
            let second = try record(into: store, patient: bo.id, startedAt: Date(timeIntervalSince1970: 1_800_000_100))
            let own = try record(into: store, patient: nil, startedAt: Date(timeIntervalSince1970: 1_800_000_200))

            XCTAssertEqual(try store.sessions(patient: ann.id).map(\.id), [first])
            XCTAssertEqual(try store.sessions(patient: bo.id).map(\.id), [second])
            XCTAssertEqual(try store.sessions().map(\.id), [own, second, first])
            XCTAssertEqual(try store.sessions().map(\.patientID), [nil, bo.id, ann.id])
            XCTAssertEqual(try store.session(first)?.session.patientID, ann.id)
        }
    }

    func testASessionRowWithoutAPatientEncodesAsBefore() throws {
        let row = SessionRow(
            id: 1, startedAt: "2026-11-29T00:00:00Z", durationS: 1, breaths: 0, sets: 0, meanPressureCmH2O: nil,
            shareInTarget: nil, source: .browser, status: .complete)
        let json = String(decoding: try JSONEncoder().encode(row), as: UTF8.self)
        XCTAssertFalse(json.contains("patient_id"))
        var theirs = row
        theirs.patientID = 7
        XCTAssertEqual(try JSONDecoder().decode(SessionRow.self, from: JSONEncoder().encode(theirs)).patientID, 7)
        XCTAssertNil(try JSONDecoder().decode(SessionRow.self, from: Data(json.utf8)).patientID)
    }
}

/// Clinicians' sign-ins: kept as the digest of their token, until they expire or are forgotten.
final class ClinicianSignInStoreTests: XCTestCase {
    func testASignInHoldsUntilItExpiresOrIsForgotten() throws {
        try eachStore { store in
            let clinician = try store.addClinician(username: "c", name: "C", passwordHash: "h")
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            try store.recordSignIn(clinician: clinician.id, token: "sign-in-token-1", expires: start.addingTimeInterval(3600), now: start)
            XCTAssertEqual(try store.clinician(signedInWith: "sign-in-token-1", now: start.addingTimeInterval(3599)), clinician)
            XCTAssertNil(try store.clinician(signedInWith: "sign-in-token-1", now: start.addingTimeInterval(3600)), "expired")
            XCTAssertNil(try store.clinician(signedInWith: "sign-in-token-2", now: start))

            try store.recordSignIn(clinician: clinician.id, token: "sign-in-token-2", expires: start.addingTimeInterval(7200), now: start)
            XCTAssertTrue(try store.forgetSignIn(token: "sign-in-token-2"))
            XCTAssertNil(try store.clinician(signedInWith: "sign-in-token-2", now: start))
            XCTAssertFalse(try store.forgetSignIn(token: "sign-in-token-2"))

            try store.recordSignIn(clinician: clinician.id, token: "sign-in-token-3", expires: start.addingTimeInterval(9000), now: start.addingTimeInterval(4000))
            let kept: [String] = try store.database.read { db in
                try db.rows("SELECT token_hash FROM clinician_sign_ins", []).map { try $0.get("token_hash") }
            }
            XCTAssertEqual(kept, [SHA256.hex(of: Array("sign-in-token-3".utf8))], "expired sign-ins are forgotten; tokens kept as digests")
        }
    }
}

/// A clinician's new password, a patient's new token.
final class ClinicCredentialStoreTests: XCTestCase {
    func testANewPasswordEndsTheSignInsAndANewTokenRetiresTheOld() throws {
        try eachStore { store in
            let clinician = try store.addClinician(username: "c", name: "C", passwordHash: "old hash")
            let now = Date()
            try store.recordSignIn(clinician: clinician.id, token: "signed-in-before", expires: now.addingTimeInterval(3600), now: now)
            XCTAssertTrue(try store.setPasswordHash("new hash", forClinician: "c"))
            XCTAssertEqual(try store.clinician(username: "c")?.passwordHash, "new hash")
            XCTAssertNil(try store.clinician(signedInWith: "signed-in-before", now: now), "a new password ends the sign-ins made before")
            XCTAssertFalse(try store.setPasswordHash("h", forClinician: "nobody"))

            let ann = try store.addPatient(name: "Ann", clinician: clinician.id, plan: .standard, token: "ann-old-token-0123456789")
            try store.addPatient(name: "Bo", clinician: clinician.id, plan: .standard, token: "bo-token-0123456789abcd")
            XCTAssertTrue(try store.replaceToken(ofPatient: ann.id, with: "ann-new-token-0123456789"))
            XCTAssertNil(try store.patient(presenting: "ann-old-token-0123456789"), "the old token opens nothing")
            XCTAssertEqual(try store.patient(presenting: "ann-new-token-0123456789")?.id, ann.id)
            XCTAssertThrowsError(try store.replaceToken(ofPatient: ann.id, with: "bo-token-0123456789abcd"), "another patient's token")
            XCTAssertEqual(try store.patient(presenting: "ann-new-token-0123456789")?.id, ann.id, "the refused token changed nothing")
            XCTAssertFalse(try store.replaceToken(ofPatient: 999, with: "any-token-0123456789abc"))
        }
    }
}
