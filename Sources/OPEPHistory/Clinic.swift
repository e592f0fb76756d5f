import Foundation
import OPEPKit

/// A physiotherapist's account in a clinic's history (docs/clinic.md). The password is kept only
/// as the hash the caller made of it (bcrypt, by `opep clinic`); the history never sees it.
public struct Clinician: Sendable, Hashable, Codable {
    public var id: Int64
    /// What the clinician signs in with: 1-64 of `a-z`, `0-9`, `.`, `_` and `-`.
    public var username: String
    /// The name shown to patients and colleagues.
    public var name: String
    /// ISO 8601, UTC.
    public var createdAt: String

    enum CodingKeys: String, CodingKey {
        case id, username, name, createdAt = "created_at"
    }
}

/// A patient a clinician follows: their plan, and their sessions (`patient_id` of a session). The
/// patient's coach presents an access token of its own, which the history keeps only as its
/// SHA-256 digest. A patient whose therapy has ended is archived: their token opens nothing and
/// their clinician's list shows them apart, while their sessions stay; only then can they be
/// deleted, with their sessions. A patient can be handed over to another clinician.
public struct Patient: Sendable, Hashable, Codable {
    public var id: Int64
    /// The clinician who follows the patient.
    public var clinicianID: Int64
    public var name: String
    /// The plan the patient's coach follows.
    public var plan: TherapyPlan
    /// ISO 8601, UTC.
    public var createdAt: String
    /// When the patient was archived (ISO 8601, UTC); nil while they are followed.
    public var archivedAt: String?

    enum CodingKeys: String, CodingKey {
        case id, clinicianID = "clinician_id", name, plan, createdAt = "created_at", archivedAt = "archived_at"
    }
}

/// What ``HistoryStore/deletePatient(_:)`` did.
public enum PatientDeletion: Sendable, Hashable {
    /// The patient is gone with this many sessions; `audioLeft` names the audio files kept for
    /// them that could not be removed (none, normally).
    case deleted(sessions: Int, audioLeft: [String])
    /// There is no such patient.
    case noSuchPatient
    /// The patient is followed, not archived: archive them first.
    case notArchived
    /// This session of theirs is still being recorded.
    case stillRecording(session: Int64)
}

/// A clinician or a patient that cannot be stored as given, naming the field, the value and what
/// it must be.
public struct ClinicRecordError: Error, Sendable, Hashable, CustomStringConvertible {
    public var field: String
    /// The value given; nil for a secret (a password, a token), which is never repeated.
    public var value: String?
    public var expected: String

    public init(field: String, value: String?, expected: String) {
        self.field = field
        self.value = value
        self.expected = expected
    }

    public var description: String {
        "the \(field)\(value.map { " \"\($0)\"" } ?? "") cannot be used: it must be \(expected)"
    }
}

extension HistoryStore {
    /// Longest name of a clinician or a patient, in characters.
    public static let longestName = 200
    /// Longest username, in characters.
    public static let longestUsername = 64

    // MARK: Clinicians

    /// Adds a clinician's account; `passwordHash` is the hash of their password (never the
    /// password). Throws ``ClinicRecordError`` for a username or name that cannot be used or a
    /// username already taken.
    @discardableResult
    public func addClinician(username: String, name: String, passwordHash: String, now: Date = Date()) throws -> Clinician {
        try Self.checkUsername(username)
        let name = try Self.checkedName(name, field: "name")
        guard !passwordHash.isEmpty else { throw ClinicRecordError(field: "password hash", value: nil, expected: "not empty") }
        return try database.write { db in
            guard try db.row("SELECT 1 FROM clinicians WHERE username = ?", [username]) == nil else {
                throw ClinicRecordError(field: "username", value: username, expected: "one no other clinician has")
            }
            let id: Int64 = try db.row(
                "INSERT INTO clinicians (username, name, password_hash, created_at) VALUES (?, ?, ?, ?) RETURNING id",
                [username, name, passwordHash, now.timeIntervalSince1970]
            )!.get("id")
            return Clinician(id: id, username: username, name: name, createdAt: Self.iso8601(now))
        }
    }

    /// Every clinician, by username.
    public func clinicians() throws -> [Clinician] {
        try database.read { db in try db.rows("SELECT * FROM clinicians ORDER BY username", []).map(Self.clinician) }
    }

    /// The clinician with `username` and the hash of their password; nil when there is none.
    public func clinician(username: String) throws -> (clinician: Clinician, passwordHash: String)? {
        try database.read { db in
            guard let row = try db.row("SELECT * FROM clinicians WHERE username = ?", [username]) else { return nil }
            return (try Self.clinician(row), try row.get("password_hash"))
        }
    }

    /// Replaces the clinician's password hash and forgets their sign-ins, so that only the new
    /// password opens their patients from now on; false when there is no such clinician.
    @discardableResult
    public func setPasswordHash(_ passwordHash: String, forClinician username: String) throws -> Bool {
        guard !passwordHash.isEmpty else { throw ClinicRecordError(field: "password hash", value: nil, expected: "not empty") }
        return try database.write { db in
            guard let row = try db.row("SELECT id FROM clinicians WHERE username = ?", [username]) else { return false }
            let id: Int64 = try row.get("id")
            try db.execute("UPDATE clinicians SET password_hash = ? WHERE id = ?", [passwordHash, id])
            try db.execute("DELETE FROM clinician_sign_ins WHERE clinician_id = ?", [id])
            return true
        }
    }

    /// The clinician `id`; nil when there is none.
    public func clinician(_ id: Int64) throws -> Clinician? {
        try database.read { db in try db.row("SELECT * FROM clinicians WHERE id = ?", [id]).map(Self.clinician) }
    }

    // MARK: Signing in

    /// Records that the clinician `clinicianID` signed in with `token` (kept as its SHA-256) until
    /// `expires`; sign-ins already expired are forgotten at the same time.
    public func recordSignIn(clinician clinicianID: Int64, token: String, expires: Date, now: Date = Date()) throws {
        let digest = Self.tokenDigest(token)
        try database.write { db in
            try db.execute("DELETE FROM clinician_sign_ins WHERE expires_at <= ?", [now.timeIntervalSince1970])
            try db.execute(
                "INSERT INTO clinician_sign_ins (token_hash, clinician_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                [digest, clinicianID, now.timeIntervalSince1970, expires.timeIntervalSince1970])
        }
    }

    /// The clinician signed in with `token`, while the sign-in holds; nil otherwise.
    public func clinician(signedInWith token: String, now: Date = Date()) throws -> Clinician? {
        let digest = Self.tokenDigest(token)
        return try database.read { db in
            try db.row(
                """
                SELECT clinicians.* FROM clinician_sign_ins JOIN clinicians ON clinicians.id = clinician_sign_ins.clinician_id
                WHERE clinician_sign_ins.token_hash = ? AND clinician_sign_ins.expires_at > ?
                """,
                [digest, now.timeIntervalSince1970]
            ).map(Self.clinician)
        }
    }

    /// Forgets the sign-in made with `token` (signing out); false when there was none.
    @discardableResult
    public func forgetSignIn(token: String) throws -> Bool {
        let digest = Self.tokenDigest(token)
        return try database.write { db in try db.execute("DELETE FROM clinician_sign_ins WHERE token_hash = ?", [digest]) > 0 }
    }

    // MARK: Patients

    /// Adds a patient followed by the clinician `clinicianID`, with `plan` and the access token
    /// their coach will present (kept as its SHA-256 digest). Throws ``ClinicRecordError`` for a
    /// name that cannot be used, a clinician that does not exist or a token another patient has.
    @discardableResult
    public func addPatient(name: String, clinician clinicianID: Int64, plan: TherapyPlan, token: String, now: Date = Date()) throws -> Patient {
        let name = try Self.checkedName(name, field: "patient name")
        try plan.validate()
        let planJSON = try Self.json(plan)
        let digest = Self.tokenDigest(token)
        return try database.write { db in
            guard try db.row("SELECT 1 FROM clinicians WHERE id = ?", [clinicianID]) != nil else {
                throw ClinicRecordError(field: "clinician", value: String(clinicianID), expected: "the id of a clinician in this history")
            }
            try Self.requireUnusedToken(db, digest, except: nil)
            let id: Int64 = try db.row(
                "INSERT INTO patients (clinician_id, name, plan_json, token_hash, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id",
                [clinicianID, name, planJSON, digest, now.timeIntervalSince1970]
            )!.get("id")
            return Patient(id: id, clinicianID: clinicianID, name: name, plan: plan, createdAt: Self.iso8601(now))
        }
    }

    /// The patients of the clinician `clinicianID` (every patient when nil), by name: those
    /// archived or not when `archived` says which, else both.
    public func patients(of clinicianID: Int64? = nil, archived: Bool? = nil) throws -> [Patient] {
        var conditions: [String] = [], arguments: [any SQLArgument] = []
        if let clinicianID {
            conditions.append("clinician_id = ?")
            arguments.append(clinicianID)
        }
        if let archived { conditions.append(archived ? "archived_at IS NOT NULL" : "archived_at IS NULL") }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return try database.read { db in try db.rows("SELECT * FROM patients\(filter) ORDER BY name, id", arguments).map(Self.patient) }
    }

    /// The patient `id`; nil when there is none.
    public func patient(_ id: Int64) throws -> Patient? {
        try database.read { db in try db.row("SELECT * FROM patients WHERE id = ?", [id]).map(Self.patient) }
    }

    /// The patient whose coach presents `token`; nil when no patient has it or theirs is archived.
    public func patient(presenting token: String) throws -> Patient? {
        let digest = Self.tokenDigest(token)
        return try database.read { db in
            try db.row("SELECT * FROM patients WHERE token_hash = ? AND archived_at IS NULL", [digest]).map(Self.patient)
        }
    }

    /// Archives the patient `id` at `now` (their therapy has ended), or follows them again when
    /// `archived` is false; archiving one already archived keeps its first time. False when there
    /// is no such patient.
    @discardableResult
    public func setArchived(_ archived: Bool, patient id: Int64, now: Date = Date()) throws -> Bool {
        try database.write { db in
            archived
                ? try db.execute("UPDATE patients SET archived_at = COALESCE(archived_at, ?) WHERE id = ?", [now.timeIntervalSince1970, id]) > 0
                : try db.execute("UPDATE patients SET archived_at = NULL WHERE id = ?", [id]) > 0
        }
    }

    /// Hands the patient `id` over to the clinician `clinicianID`, who follows them from now on
    /// with their sessions, plan and token as they are. False when there is no such patient;
    /// ``ClinicRecordError`` when there is no such clinician.
    @discardableResult
    public func handOver(patient id: Int64, to clinicianID: Int64) throws -> Bool {
        try database.write { db in
            guard try db.row("SELECT 1 FROM clinicians WHERE id = ?", [clinicianID]) != nil else {
                throw ClinicRecordError(field: "clinician", value: String(clinicianID), expected: "the id of a clinician in this history")
            }
            return try db.execute("UPDATE patients SET clinician_id = ? WHERE id = ?", [clinicianID, id]) > 0
        }
    }

    /// Deletes the patient `id` for good with every session of theirs (breaths, sets, events,
    /// frames) and the audio files kept for them, in one transaction. Only an archived patient
    /// can be deleted, and none of whose sessions is still being recorded.
    public func deletePatient(_ id: Int64) throws -> PatientDeletion {
        let outcome: PatientDeletion = try database.write { db in
            guard let row = try db.row("SELECT archived_at FROM patients WHERE id = ?", [id]) else { return .noSuchPatient }
            guard (try row.get("archived_at") as Double?) != nil else { return .notArchived }
            if let recording = try db.row(
                "SELECT id FROM sessions WHERE patient_id = ? AND status = ? ORDER BY id LIMIT 1", [id, SessionStatus.recording.rawValue])
            {
                return .stillRecording(session: try recording.get("id"))
            }
            let audio: [String] = try db.rows(
                "SELECT audio_path FROM sessions WHERE patient_id = ? AND audio_path IS NOT NULL", [id]
            ).map { try $0.get("audio_path") }
            let sessions = try db.execute("DELETE FROM sessions WHERE patient_id = ?", [id])
            try db.execute("DELETE FROM patients WHERE id = ?", [id])
            return .deleted(sessions: sessions, audioLeft: audio)
        }
        guard case .deleted(let sessions, let audio) = outcome else { return outcome }
        return .deleted(sessions: sessions, audioLeft: audio.filter { path in
            (try? FileManager.default.removeItem(atPath: path)) == nil && FileManager.default.fileExists(atPath: path)
        })
    }

    /// Gives the patient `id` a new access token (kept as its SHA-256): the old one opens nothing
    /// from now on. False when there is no such patient; ``ClinicRecordError`` for a token another
    /// patient has.
    @discardableResult
    public func replaceToken(ofPatient id: Int64, with token: String) throws -> Bool {
        let digest = Self.tokenDigest(token)
        return try database.write { db in
            try Self.requireUnusedToken(db, digest, except: id)
            return try db.execute("UPDATE patients SET token_hash = ? WHERE id = ?", [digest, id]) > 0
        }
    }

    /// Validates and saves the plan of the patient `id`; false when there is no such patient.
    @discardableResult
    public func savePlan(_ plan: TherapyPlan, forPatient id: Int64) throws -> Bool {
        try plan.validate()
        let json = try Self.json(plan)
        return try database.write { db in try db.execute("UPDATE patients SET plan_json = ? WHERE id = ?", [json, id]) > 0 }
    }

    // MARK: Rows and checks

    /// Throws ``ClinicRecordError`` when a patient other than `except` has the token `digest`.
    static func requireUnusedToken(_ db: any SQLConnection, _ digest: String, except id: Int64?) throws {
        guard try db.row("SELECT 1 FROM patients WHERE token_hash = ? AND id <> ?", [digest, id ?? 0]) == nil else {
            throw ClinicRecordError(field: "token", value: nil, expected: "one no other patient has")
        }
    }

    /// The digest a patient's token is kept as: SHA-256 of its UTF-8, in hexadecimal.
    static func tokenDigest(_ token: String) -> String {
        SHA256.hex(of: Array(token.utf8))
    }

    static func clinician(_ row: SQLRow) throws -> Clinician {
        Clinician(
            id: try row.get("id"), username: try row.get("username"), name: try row.get("name"),
            createdAt: iso8601(Date(timeIntervalSince1970: try row.get("created_at"))))
    }

    static func patient(_ row: SQLRow) throws -> Patient {
        Patient(
            id: try row.get("id"), clinicianID: try row.get("clinician_id"), name: try row.get("name"),
            plan: try decode(TherapyPlan.self, row.get("plan_json")),
            createdAt: iso8601(Date(timeIntervalSince1970: try row.get("created_at"))),
            archivedAt: (try row.get("archived_at") as Double?).map { iso8601(Date(timeIntervalSince1970: $0)) })
    }

    static func checkUsername(_ username: String) throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789._-")
        guard (1...longestUsername).contains(username.count), username.allSatisfy(allowed.contains) else {
            throw ClinicRecordError(
                field: "username", value: username, expected: "1-\(longestUsername) of a-z, 0-9, '.', '_' and '-'")
        }
    }

    /// `name` without spaces around it, when 1-``longestName`` characters without control characters remain.
    static func checkedName(_ name: String, field: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...longestName).contains(trimmed.count),
            !trimmed.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) })
        else {
            throw ClinicRecordError(field: field, value: name, expected: "1-\(longestName) characters without control characters")
        }
        return trimmed
    }
}

/// A patient's adherence at a glance, for their clinician: their sessions, breaths and time in
/// target over the last 7 days and the 7 before, and when their last session started.
public struct PatientAdherence: Sendable, Hashable, Codable {
    /// What one week held.
    public struct Week: Sendable, Hashable, Codable {
        public var sessions: Int
        public var breaths: Int
        /// Share of the week's flutter time within the target, weighted by each session's
        /// exhalation time; nil when no flutter was measured.
        public var shareInTarget: Double?

        enum CodingKeys: String, CodingKey {
            case sessions, breaths, shareInTarget = "share_in_target"
        }
    }

    public var patient: Patient
    /// ISO 8601, UTC; nil before their first session.
    public var lastSession: String?
    /// The 7 days up to now.
    public var thisWeek: Week
    /// The 7 days before those.
    public var weekBefore: Week

    enum CodingKeys: String, CodingKey {
        case patient, lastSession = "last_session", thisWeek = "this_week", weekBefore = "week_before"
    }
}

extension HistoryStore {
    /// Seconds in the weeks of ``PatientAdherence``.
    static let week: TimeInterval = 7 * 24 * 3600

    /// `patient`'s adherence at `now` (``PatientAdherence``).
    public func adherence(of patient: Patient, now: Date = Date()) throws -> PatientAdherence {
        let end = now.timeIntervalSince1970
        let (rows, last) = try database.read { db in
            (
                try db.rows(
                    """
                    SELECT started_at, breath_count, share_in_target, mean_pressure_cmh2o, exhalation_time_s FROM sessions
                    WHERE patient_id = ? AND started_at >= ? AND started_at < ?
                    """,
                    [patient.id, end - 2 * Self.week, end]),
                try db.row("SELECT MAX(started_at) AS last FROM sessions WHERE patient_id = ?", [patient.id])?.get("last") as Double?
            )
        }
        var weeks = [SessionTally(), SessionTally()]
        for row in rows {
            try weeks[(try row.get("started_at") as Double) >= end - Self.week ? 0 : 1].add(row)
        }
        let figures = weeks.map { PatientAdherence.Week(sessions: $0.sessions, breaths: $0.breaths, shareInTarget: $0.shareInTarget) }
        return PatientAdherence(
            patient: patient, lastSession: last.map { Self.iso8601(Date(timeIntervalSince1970: $0)) },
            thisWeek: figures[0], weekBefore: figures[1])
    }

    /// Whether the session `id` is a patient's whom the clinician `clinician` follows.
    public func session(_ id: Int64, followedBy clinician: Int64) throws -> Bool {
        try database.read { db in
            try db.row(
                "SELECT 1 FROM sessions JOIN patients ON patients.id = sessions.patient_id WHERE sessions.id = ? AND patients.clinician_id = ?",
                [id, clinician]) != nil
        }
    }
}
