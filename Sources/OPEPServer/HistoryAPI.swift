import Foundation
import Hummingbird
import OPEPHistory
import OPEPKit

/// The JSON API over the history: the plan, sessions, frames, exports, imports and trends. A
/// request with a patient's token (`patient`) reads that patient's plan and sessions only, and
/// saves its sessions as theirs; without, the whole history.
struct HistoryAPI: Sendable {
    let store: HistoryStore
    let maxRequestBytes: Int
    let maxDocumentBytes: Int

    /// The plan: the history's own, or a patient's with the name of the physiotherapist who
    /// prescribed it (`prescribed_by`; the page then shows it and does not offer to change it).
    func plan(for patient: Patient?) throws -> Response {
        guard let patient else { return jsonResponse(LiveSession.encode(try store.plan())) }
        let prescriber = try store.clinician(patient.clinicianID)?.name ?? "your physiotherapist"
        return jsonResponse(LiveSession.encode(PrescribedPlan(plan: patient.plan, prescribedBy: prescriber)))
    }

    /// Whose history a request of the owner's or a patient's reads: nil for the whole history, or
    /// the patient's. A clinician reads their patients' through the clinic's API
    /// (`/api/clinic/...`), so here they are answered 403.
    static func reader(_ context: ServerRequestContext) throws -> Patient? {
        guard context.clinician == nil || context.patient != nil else {
            throw APIError(.forbidden, "a clinician reads their patients' plans and sessions through /api/clinic/patients")
        }
        return context.patient
    }

    func savePlan(_ request: Request, context: ServerRequestContext) async throws -> Response {
        guard try Self.reader(context) == nil else {
            throw APIError(.forbidden, "your plan is set by your physiotherapist: ask them to change it")
        }
        let plan = try await Self.plan(in: request, upTo: maxRequestBytes)
        try store.savePlan(plan)
        return jsonResponse(LiveSession.encode(plan))
    }

    /// The validated plan a `PUT` carries, or a 4xx saying what is wrong with it.
    static func plan(in request: Request, upTo maxBytes: Int) async throws -> TherapyPlan {
        let body = try await collectBody(request, upTo: maxBytes, what: "the plan")
        let plan: TherapyPlan
        do {
            plan = try JSONDecoder().decode(TherapyPlan.self, from: Data(buffer: body))
        } catch let error as DecodingError {
            throw APIError(.badRequest, "the plan is not valid JSON of the expected shape: \(LiveSession.describe(error))")
        } catch {
            throw APIError(.badRequest, "the plan is not valid JSON")
        }
        do {
            try plan.validate()
        } catch {
            throw APIError(.badRequest, "\(error)")
        }
        return plan
    }

    func sessions(_ request: Request, of patient: Patient?) throws -> Response {
        let query = request.uri.queryParameters
        let limit = query.get("limit", as: Int.self)
        if let limit, limit < 1 { throw APIError(.badRequest, "limit must be at least 1") }
        let rows = try store.sessions(limit: limit, patient: patient?.id)
        return jsonResponse(LiveSession.encode(["sessions": rows]))
    }

    /// `POST /api/sessions`: saves a session from its document (`opep analyze --format json`, the
    /// phone's export), as `patient`'s when given. 201 with its id when new, 200 with the same id
    /// when it was already saved.
    func importSession(_ request: Request, for patient: Patient?) async throws -> Response {
        let body = try await collectBody(request, upTo: maxDocumentBytes, what: "a session document")
        let document: SessionAnalysis
        do {
            document = try SessionAnalysis(json: Data(buffer: body))
        } catch let error as DecodingError {
            throw APIError(.badRequest, "the body is not a session document as `opep analyze --format json` writes it: \(LiveSession.describe(error))")
        } catch {
            throw APIError(.badRequest, "the body is not valid JSON")
        }
        let saved: SessionImport
        do {
            saved = try store.importSession(document, source: .imported, defaultStart: Date(), patient: patient?.id)
        } catch let error as SessionDocumentError {
            throw APIError(.badRequest, "the session document does not hold together: \(error)")
        }
        var response = jsonResponse(LiveSession.encode(ImportAnswer(sessionID: saved.id, created: saved.created)), status: saved.created ? .created : .ok)
        response.headers[.location] = "/api/sessions/\(saved.id)"
        return response
    }

    /// A 404 for a session that is not there, or not the requester's to see (a patient's own, a
    /// clinician's patients'): nobody learns of anyone else's sessions, not even that they exist.
    private func requireVisible(_ id: Int64, to context: ServerRequestContext) throws {
        let visible: Bool
        if let patient = context.patient {
            visible = try store.session(id, belongsTo: patient.id)
        } else if let clinician = context.clinician {
            visible = try store.session(id, followedBy: clinician.id)
        } else {
            visible = true
        }
        guard visible else { throw APIError(.notFound, "no session \(id)") }
    }

    func session(_ id: Int64, for context: ServerRequestContext) throws -> Response {
        try requireVisible(id, to: context)
        guard let detail = try store.session(id) else { throw APIError(.notFound, "no session \(id)") }
        return jsonResponse(LiveSession.encode(detail))
    }

    func frames(_ id: Int64, for context: ServerRequestContext) throws -> Response {
        try requireVisible(id, to: context)
        guard let frames = try store.frames(id) else { throw APIError(.notFound, "no session \(id)") }
        var text = "{\"frames\":["
        text.reserveCapacity(frames.count * 32 + 16)
        for (index, frame) in frames.enumerated() {
            if index > 0 { text += "," }
            text += "[\(LiveSession.number(frame.time, 3)),\(LiveSession.number(frame.pitch, 2)),\(LiveSession.number(frame.pressure, 2)),\(frame.exhaling ? 1 : 0)]"
        }
        text += "]}"
        return jsonResponse(text)
    }

    func exportCSV(_ id: Int64, for context: ServerRequestContext) throws -> Response {
        try requireVisible(id, to: context)
        guard let csv = try store.exportCSV(id) else { throw APIError(.notFound, "no session \(id)") }
        return Response(
            status: .ok,
            headers: [.contentType: "text/csv; charset=utf-8", .contentDisposition: "attachment; filename=\"opep-session-\(id).csv\""],
            body: .init(byteBuffer: ByteBuffer(string: csv)))
    }

    func exportJSON(_ id: Int64, for context: ServerRequestContext) throws -> Response {
        try requireVisible(id, to: context)
        guard let json = try store.exportJSON(id) else { throw APIError(.notFound, "no session \(id)") }
        var response = jsonResponse(json)
        response.headers[.contentDisposition] = "attachment; filename=\"opep-session-\(id).json\""
        return response
    }

    func trends(_ request: Request, of patient: Patient?) throws -> Response {
        let days = request.uri.queryParameters.get("days", as: Int.self) ?? 30
        guard days >= 1, days <= 3660 else { throw APIError(.badRequest, "days must be between 1 and 3660") }
        return jsonResponse(LiveSession.encode(["days": try store.trends(days: days, patient: patient?.id)]))
    }
}

/// A patient's plan as `GET /api/plan` answers it: the plan's own keys and `prescribed_by`.
struct PrescribedPlan: Encodable {
    var plan: TherapyPlan
    var prescribedBy: String

    enum CodingKeys: String, CodingKey {
        case prescribedBy = "prescribed_by"
    }

    func encode(to encoder: any Encoder) throws {
        try plan.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(prescribedBy, forKey: .prescribedBy)
    }
}

/// The answer to `POST /api/sessions`.
struct ImportAnswer: Encodable {
    var sessionID: Int64
    var created: Bool

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id", created
    }
}

/// The dashboard's files, from the `Dashboard` folder of the module's resources.
struct DashboardFiles: Sendable {
    let root: URL?

    init(root: URL? = Bundle.module.url(forResource: "Dashboard", withExtension: nil)) {
        self.root = root?.standardizedFileURL
    }

    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "svg": "image/svg+xml", "png": "image/png", "json": "application/json",
        "ico": "image/x-icon", "webmanifest": "application/manifest+json", "wasm": "application/wasm", "txt": "text/plain; charset=utf-8",
        "woff2": "font/woff2",
    ]

    /// The file at `segments` inside the folder (for `/assets/...`, first under `assets/`, then at
    /// the top), or 404. Segments that could leave the folder are refused.
    func response(for segments: [String], underAssets: Bool = false) throws -> Response {
        guard let root else { throw HTTPError(.notFound, message: "the dashboard's files are missing") }
        var parts: [String] = []
        for segment in segments {
            guard let decoded = segment.removingPercentEncoding, !decoded.isEmpty, decoded != ".", decoded != "..",
                !decoded.contains("/"), !decoded.contains("\\"), !decoded.contains("\0"), !decoded.hasPrefix(".")
            else { throw HTTPError(.notFound) }
            parts.append(decoded)
        }
        guard !parts.isEmpty else { throw HTTPError(.notFound) }
        let candidates = underAssets ? [["assets"] + parts, parts] : [parts]
        for candidate in candidates {
            let url = candidate.reduce(root) { $0.appendingPathComponent($1) }.standardizedFileURL
            guard url.path.hasPrefix(root.path + "/") else { continue }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let data = FileManager.default.contents(atPath: url.path)
            else { continue }
            let type = Self.contentTypes[url.pathExtension.lowercased()] ?? "application/octet-stream"
            return Response(
                status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        throw HTTPError(.notFound)
    }
}
