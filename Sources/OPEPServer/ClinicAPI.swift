import Foundation
import Hummingbird
import NIOPosix
import OPEPHistory
import OPEPKit
import OPEPReport

/// The clinicians' JSON API (`/api/clinic/...`): signing in and out, changing one's password, their
/// patients with their adherence at a glance, adding a patient, one patient's sessions and trends,
/// their adherence report, changing a patient's plan or access token, archiving, handing over to a
/// colleague and deleting them. A clinician sees only the patients they follow; any other patient
/// answers 404, as one that does not exist.
struct ClinicAPI: Sendable {
    let store: HistoryStore
    let failures: FailedAttempts
    let maxRequestBytes: Int
    /// Whether the server speaks HTTPS (the sign-in cookie is then `Secure`).
    let secure: Bool

    /// What `POST /api/clinic/sign-in` takes.
    struct Credentials: Decodable {
        var username: String
        var password: String
    }

    /// A hash no password matches, verified when the username is unknown so that a wrong username
    /// takes as long as a wrong password.
    static let unknownUserHash = try! ClinicianPassword.hash("no clinician has this password")

    /// `POST /api/clinic/sign-in` `{"username", "password"}`: 200 with the clinician and the
    /// sign-in cookie; 401 for a wrong username or password, counted as a wrong token.
    func signIn(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let client = context.clientAddress ?? "unknown"
        let credentials = try await passwordForm(
            Credentials.self, in: request, from: client, what: "the sign-in", shape: #"{"username": ..., "password": ...}"#)
        let found = try store.clinician(username: credentials.username)
        let hash = found?.passwordHash ?? Self.unknownUserHash
        let matches = try await NIOThreadPool.singleton.runIfActive {
            ClinicianPassword.verify(credentials.password, hash: hash)
        }
        guard let clinician = found?.clinician, matches else {
            failures.record(client)
            throw APIError(.unauthorized, "wrong username or password")
        }
        return try newSignIn(of: clinician)
    }

    /// What `POST /api/clinic/password` takes.
    struct PasswordChange: Decodable {
        var current: String
        var new: String
    }

    /// `POST /api/clinic/password` `{"current", "new"}`: the signed-in clinician's new password.
    /// Every sign-in of theirs ends (another browser, a lost laptop) but this one, which gets a new
    /// cookie. 403 for a wrong current password (counted as a wrong token), 400 for a new one too
    /// short or too long.
    func changePassword(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let clinician = try signedIn(context)
        let client = context.clientAddress ?? "unknown"
        let change = try await passwordForm(
            PasswordChange.self, in: request, from: client, what: "the password change", shape: #"{"current": ..., "new": ...}"#)
        do {
            try ClinicianPassword.requireAcceptable(change.new, field: "new password")
        } catch let refusal as ClinicRecordError {
            throw APIError(.badRequest, refusal.description)
        }
        guard let stored = try store.clinician(username: clinician.username) else { throw APIError(.unauthorized, "sign in as a clinician first") }
        let newHash = try await NIOThreadPool.singleton.runIfActive { () throws -> String? in
            guard ClinicianPassword.verify(change.current, hash: stored.passwordHash) else { return nil }
            return try ClinicianPassword.hash(change.new)
        }
        guard let newHash else {
            failures.record(client)
            throw APIError(.forbidden, "the current password is wrong")
        }
        _ = try store.setPasswordHash(newHash, forClinician: clinician.username)
        return try newSignIn(of: clinician)
    }

    /// The JSON a form with a password sent, unless `client` is locked out by its wrong attempts.
    private func passwordForm<Form: Decodable>(
        _ type: Form.Type, in request: Request, from client: String, what: String, shape: String
    ) async throws -> Form {
        if let wait = failures.lockedFor(client) { throw AccessRefusal.tooManyAttempts(retryAfter: wait) }
        return try await form(type, in: request, what: what, shape: shape)
    }

    /// The JSON a form sent; a 400 saying `what` must be JSON of `shape` otherwise.
    private func form<Form: Decodable>(_ type: Form.Type, in request: Request, what: String, shape: String) async throws -> Form {
        let body = try await collectBody(request, upTo: maxRequestBytes, what: what)
        do {
            return try JSONDecoder().decode(type, from: Data(buffer: body))
        } catch {
            throw APIError(.badRequest, "\(what) must be JSON \(shape)")
        }
    }

    /// A new sign-in of `clinician`: 200 with them and the cookie that keeps it.
    private func newSignIn(of clinician: Clinician) throws -> Response {
        let token = AccessToken.random()
        try store.recordSignIn(clinician: clinician.id, token: token.text, expires: Date().addingTimeInterval(ClinicianSignIn.lifetime))
        var response = jsonResponse(LiveSession.encode(["clinician": clinician]))
        response.headers[.setCookie] = ClinicianSignIn.cookie(keeping: token.text, secure: secure)
        return response
    }

    /// `POST /api/clinic/sign-out`: forgets the sign-in; 204 with a cookie that clears it.
    func signOut(_ request: Request) throws -> Response {
        if let token = ClinicianSignIn.presented(by: request) { try store.forgetSignIn(token: token) }
        var response = Response(status: .noContent)
        response.headers[.setCookie] = ClinicianSignIn.forgettingCookie(secure: secure)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// `GET /api/clinic/patients`: the clinician and each of their patients' adherence, those they
    /// follow and, apart, those archived.
    func patients(_ context: ServerRequestContext) throws -> Response {
        let clinician = try signedIn(context)
        let now = Date()
        func adherence(archived: Bool) throws -> [PatientAdherence] {
            try store.patients(of: clinician.id, archived: archived).map { try store.adherence(of: $0, now: now) }
        }
        let list = PatientList(clinician: clinician, patients: try adherence(archived: false), archived: try adherence(archived: true))
        return jsonResponse(LiveSession.encode(list))
    }

    /// `POST /api/clinic/patients/:id/archive` (`archived` true) and `.../restore` (false): the
    /// patient archived, their token then opening nothing, or followed again; 200 with the patient.
    func setArchived(_ archived: Bool, _ id: Int64, context: ServerRequestContext) throws -> Response {
        let patient = try followed(id, by: try signedIn(context))
        try store.setArchived(archived, patient: patient.id)
        return jsonResponse(LiveSession.encode(try store.patient(patient.id) ?? patient))
    }

    /// What `POST /api/clinic/patients` takes.
    struct NewPatient: Decodable {
        var name: String
    }

    /// `POST /api/clinic/patients` `{"name"}`: a new patient the clinician follows, on the standard
    /// plan (changed afterwards like any other), with a new access token for their coach. 201
    /// `{"patient", "token"}`: the token is shown this once (the history keeps its digest); 400
    /// for a name that cannot be used.
    func addPatient(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let clinician = try signedIn(context)
        let new = try await form(NewPatient.self, in: request, what: "the new patient", shape: #"{"name": ...}"#)
        let token = AccessToken.random()
        do {
            let patient = try store.addPatient(name: new.name, clinician: clinician.id, plan: .standard, token: token.text)
            return jsonResponse(LiveSession.encode(NewToken(patient: patient, token: token.text)), status: .created)
        } catch let refusal as ClinicRecordError {
            throw APIError(.badRequest, refusal.description)
        }
    }

    /// `POST /api/clinic/patients/:id/token`: a new access token for the patient's coach (a lost
    /// phone); the old one opens nothing from now on. 200 `{"patient", "token"}`, shown this once.
    func newToken(_ id: Int64, context: ServerRequestContext) throws -> Response {
        let patient = try followed(id, by: try signedIn(context))
        let token = AccessToken.random()
        try store.replaceToken(ofPatient: patient.id, with: token.text)
        return jsonResponse(LiveSession.encode(NewToken(patient: patient, token: token.text)))
    }

    /// `GET /api/clinic/colleagues`: the other clinicians of this history, to hand a patient over to.
    func colleagues(_ context: ServerRequestContext) throws -> Response {
        let clinician = try signedIn(context)
        return jsonResponse(LiveSession.encode(["colleagues": try store.clinicians().filter { $0.id != clinician.id }]))
    }

    /// What `POST /api/clinic/patients/:id/clinician` takes.
    struct HandOver: Decodable {
        var username: String
    }

    /// `POST /api/clinic/patients/:id/clinician` `{"username"}`: the patient handed over to that
    /// colleague, who follows them from now on (their sessions, plan and token as they are); 200
    /// with the patient, 400 when there is no such clinician.
    func handOver(_ id: Int64, _ request: Request, context: ServerRequestContext) async throws -> Response {
        let patient = try followed(id, by: try signedIn(context))
        let handOver = try await form(HandOver.self, in: request, what: "the hand-over", shape: #"{"username": ...}"#)
        guard let colleague = try store.clinician(username: handOver.username)?.clinician else {
            throw APIError(.badRequest, "no clinician \"\(handOver.username.prefix(HistoryStore.longestUsername))\" in this clinic")
        }
        try store.handOver(patient: patient.id, to: colleague.id)
        return jsonResponse(LiveSession.encode(try store.patient(patient.id) ?? patient))
    }

    /// `DELETE /api/clinic/patients/:id`: the patient deleted for good with every session of theirs;
    /// 200 `{"deleted": {"patient", "sessions", "audio_left"}}`, 409 while they are followed (archive them first)
    /// or a session of theirs is still being recorded.
    func delete(_ id: Int64, context: ServerRequestContext) throws -> Response {
        let patient = try followed(id, by: try signedIn(context))
        switch try store.deletePatient(patient.id) {
        case .deleted(let sessions, let audioLeft):
            return jsonResponse(LiveSession.encode(["deleted": PatientDeleted(patient: patient.id, sessions: sessions, audioLeft: audioLeft.count)]))
        case .noSuchPatient:
            throw APIError(.notFound, "no patient \(id)")
        case .notArchived:
            throw APIError(.conflict, "\(patient.name) is followed: archive them before deleting them")
        case .stillRecording:
            throw APIError(.conflict, "a session of \(patient.name)'s is still being recorded: delete them once it has ended")
        }
    }

    /// `GET /api/clinic/patients/:id`: one patient's adherence, sessions and daily trends (30 days).
    func patient(_ id: Int64, context: ServerRequestContext) throws -> Response {
        let patient = try followed(id, by: try signedIn(context))
        let detail = PatientDetail(
            adherence: try store.adherence(of: patient), sessions: try store.sessions(patient: patient.id),
            days: try store.trends(days: 30, patient: patient.id))
        return jsonResponse(LiveSession.encode(detail))
    }

    /// `PUT /api/clinic/patients/:id/plan`: the patient's new plan, validated; their coach takes it
    /// with its next `GET /api/plan`.
    func savePlan(_ id: Int64, _ request: Request, context: ServerRequestContext) async throws -> Response {
        let patient = try followed(id, by: try signedIn(context))
        let plan = try await HistoryAPI.plan(in: request, upTo: maxRequestBytes)
        try store.savePlan(plan, forPatient: patient.id)
        return jsonResponse(LiveSession.encode(plan))
    }

    /// The policy of an adherence report: a self-contained page whose only style is its own inline
    /// sheet and whose charts are inline SVG; no script, no request to anywhere.
    static let reportPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    /// The most days one adherence report covers.
    static let longestReport = 366

    /// `GET /api/clinic/patients/:id/report?from=YYYY-MM-DD&to=YYYY-MM-DD[&tz=Europe/Rome]`: the
    /// patient's adherence over those whole days against their plan, the page `opep report --from
    /// --to --patient` writes. Days and times are those of the time zone `tz` names (the
    /// clinician's browser sends its own), else the server's.
    func report(_ id: Int64, _ request: Request, context: ServerRequestContext) throws -> Response {
        let patient = try followed(id, by: try signedIn(context))
        let query = request.uri.queryParameters
        var timeZone = TimeZone.current
        if let name = query.get("tz") {
            guard let named = TimeZone(identifier: name) else {
                throw APIError(.badRequest, "tz wants a time zone such as Europe/Rome, not \"\(name.prefix(60))\"")
            }
            timeZone = named
        }
        func day(_ name: String) throws -> Date {
            guard let text = query.get(name) else { throw APIError(.badRequest, "\(name) is missing: give the day as YYYY-MM-DD") }
            guard let day = CalendarDay.start(of: text, in: timeZone) else {
                throw APIError(.badRequest, "\(name) wants a day written YYYY-MM-DD, e.g. 2026-11-21, not \"\(text)\"")
            }
            return day
        }
        let first = try day("from"), last = try day("to")
        guard first <= last else { throw APIError(.badRequest, "from must not be after to") }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let days = (calendar.dateComponents([.day], from: first, to: last).day ?? 0) + 1
        guard days <= Self.longestReport else {
            throw APIError(.badRequest, "a report covers at most \(Self.longestReport) days, not \(days)")
        }
        let document = try store.adherenceReport(from: first, through: last, patient: patient, timeZone: timeZone)
        let name = "adherence-patient-\(patient.id)-\(query.get("from") ?? "")-\(query.get("to") ?? "").html"
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", .contentSecurityPolicy: Self.reportPolicy,
                .contentDisposition: "inline; filename=\"\(name)\"",
            ],
            body: .init(byteBuffer: ByteBuffer(string: document.html())))
    }

    private func signedIn(_ context: ServerRequestContext) throws -> Clinician {
        guard let clinician = context.clinician else { throw APIError(.unauthorized, "sign in as a clinician first") }
        return clinician
    }

    private func followed(_ id: Int64, by clinician: Clinician) throws -> Patient {
        guard let patient = try store.patient(id), patient.clinicianID == clinician.id else {
            throw APIError(.notFound, "no patient \(id)")
        }
        return patient
    }
}

/// The answer to `GET /api/clinic/patients`.
struct PatientList: Encodable {
    var clinician: Clinician
    var patients: [PatientAdherence]
    var archived: [PatientAdherence]
}

/// A patient and the access token their coach presents from now on, shown once.
struct NewToken: Encodable {
    var patient: Patient
    var token: String
}

/// What `DELETE /api/clinic/patients/:id` deleted.
struct PatientDeleted: Encodable {
    var patient: Int64
    var sessions: Int
    /// Audio files kept for their sessions that could not be removed (none, normally).
    var audioLeft: Int

    enum CodingKeys: String, CodingKey {
        case patient, sessions, audioLeft = "audio_left"
    }
}

/// The answer to `GET /api/clinic/patients/:id`.
struct PatientDetail: Encodable {
    var adherence: PatientAdherence
    var sessions: [SessionRow]
    var days: [TrendDay]
}

/// The `:id` of a patient's route, or a 404 naming it.
func patientID(_ context: some RequestContext) throws -> Int64 {
    let text = context.parameters.get("id") ?? ""
    guard let id = Int64(text), id > 0 else { throw APIError(.notFound, "no patient \"\(text)\": patient ids are positive whole numbers") }
    return id
}
