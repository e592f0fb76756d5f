import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import OPEPHistory
import OPEPKit

/// The `opep serve` application: the dashboard's files, the JSON API and the `/live` WebSocket,
/// all over one port (see `docs/live-protocol.md`), over HTTPS when `configuration.tls` is set and
/// behind the access token when `configuration.access` is.
/// - Parameter onServerRunning: called with the port actually bound (useful with port 0).
public func buildApplication(
    _ configuration: ServerConfiguration, store: HistoryStore, logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    let live = LiveActivity(maxSessions: configuration.limits.maxSessions)
    let failures = FailedAttempts(limit: configuration.limits.maxFailedTokens, window: configuration.limits.failedTokenWindow)
    let router = buildRouter(configuration, store: store, logger: logger, failures: failures, live: live)
    let webSocketRouter = buildWebSocketRouter(configuration, store: store, live: live, failures: failures)
    let http = HTTPServerBuilder.http1WebSocketUpgrade(
        webSocketRouter: webSocketRouter, configuration: .init(ws: .init(maxFrameSize: configuration.limits.maxMessageBytes)))
    return Application(
        router: router,
        server: try configuration.tls.map { try .tls(http, tlsConfiguration: $0) } ?? http,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "opep"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger
    )
}

/// The HTTP routes: the dashboard's pages and assets and the JSON API.
/// - Parameter failures: wrong tokens counted per client (shared with the `/live` route).
/// - Parameter live: the `/live` route's sessions, for `GET /api/health`.
public func buildRouter(
    _ configuration: ServerConfiguration, store: HistoryStore, logger: Logger, failures: FailedAttempts? = nil, live: LiveActivity? = nil
) -> Router<ServerRequestContext> {
    let live = live ?? LiveActivity(maxSessions: configuration.limits.maxSessions)
    let router = Router(context: ServerRequestContext.self)
    router.add(middleware: SecurityHeaders())
    router.add(middleware: HistoryOutage())
    if !configuration.uploadOrigins.isEmpty {
        router.add(middleware: UploadOrigins(origins: configuration.uploadOrigins))
    }
    let failures = failures ?? FailedAttempts(limit: configuration.limits.maxFailedTokens, window: configuration.limits.failedTokenWindow)
    router.add(middleware: AccessGate(policy: configuration.access, store: store, failures: failures, secure: configuration.tls != nil))
    router.add(middleware: UnknownAPIRoutes())
    let files = DashboardFiles()
    let api = HistoryAPI(
        store: store, maxRequestBytes: configuration.limits.maxRequestBytes, maxDocumentBytes: configuration.limits.maxDocumentBytes)

    router.get("/") { _, _ in try files.response(for: ["index.html"]) }
    router.get("/history") { _, _ in try files.response(for: ["history.html"]) }
    router.get("/clinic") { _, _ in try files.response(for: ["clinic.html"]) }
    router.get("/sessions/:id") { _, context in
        _ = try sessionID(context)
        return try files.response(for: ["session.html"])
    }
    router.get("/manifest.webmanifest") { _, _ in try files.response(for: ["manifest.webmanifest"]) }
    router.get("/sw.js") { _, _ in try files.response(for: ["sw.js"]) }
    router.get("/assets/**") { _, context in
        try files.response(for: context.parameters.getCatchAll().map(String.init), underAssets: true)
    }

    router.get("/api/plan") { _, context in try api.plan(for: HistoryAPI.reader(context)) }
    router.put("/api/plan") { request, context in try await api.savePlan(request, context: context) }
    router.get("/api/sessions") { request, context in try api.sessions(request, of: HistoryAPI.reader(context)) }
    router.post("/api/sessions") { request, context in try await api.importSession(request, for: HistoryAPI.reader(context)) }
    router.get("/api/sessions/:id") { _, context in try api.session(sessionID(context), for: context) }
    router.get("/api/sessions/:id/frames") { _, context in try api.frames(sessionID(context), for: context) }
    router.get("/api/sessions/:id/export.csv") { _, context in try api.exportCSV(sessionID(context), for: context) }
    router.get("/api/sessions/:id/export.json") { _, context in try api.exportJSON(sessionID(context), for: context) }
    router.get("/api/trends") { request, context in try api.trends(request, of: HistoryAPI.reader(context)) }

    let clinic = ClinicAPI(store: store, failures: failures, maxRequestBytes: configuration.limits.maxRequestBytes, secure: configuration.tls != nil)
    router.post("/api/clinic/sign-in") { request, context in try await clinic.signIn(request, context: context) }
    router.post("/api/clinic/sign-out") { request, _ in try clinic.signOut(request) }
    router.post("/api/clinic/password") { request, context in try await clinic.changePassword(request, context: context) }
    router.get("/api/clinic/patients") { _, context in try clinic.patients(context) }
    router.get("/api/clinic/patients/:id") { _, context in try clinic.patient(patientID(context), context: context) }
    router.get("/api/clinic/patients/:id/report") { request, context in try clinic.report(patientID(context), request, context: context) }
    router.post("/api/clinic/patients/:id/archive") { _, context in try clinic.setArchived(true, patientID(context), context: context) }
    router.post("/api/clinic/patients/:id/restore") { _, context in try clinic.setArchived(false, patientID(context), context: context) }
    router.post("/api/clinic/patients") { request, context in try await clinic.addPatient(request, context: context) }
    router.post("/api/clinic/patients/:id/token") { _, context in try clinic.newToken(patientID(context), context: context) }
    router.get("/api/clinic/colleagues") { _, context in try clinic.colleagues(context) }
    router.post("/api/clinic/patients/:id/clinician") { request, context in try await clinic.handOver(patientID(context), request, context: context) }
    router.delete("/api/clinic/patients/:id") { _, context in try clinic.delete(patientID(context), context: context) }
    router.put("/api/clinic/patients/:id/plan") { request, context in try await clinic.savePlan(patientID(context), request, context: context) }
    router.get("/api/health") { _, _ in jsonResponse(LiveSession.encode(live.health)) }
    return router
}

/// The `/live` WebSocket route. An upgrade from another site's page, without the access token (when
/// one is needed) or from a client locked out for wrong tokens is refused: no socket is opened (the
/// WebSocket layer answers every refused upgrade with 400).
public func buildWebSocketRouter(
    _ configuration: ServerConfiguration, store: HistoryStore, live: LiveActivity, failures: FailedAttempts
) -> Router<LiveRequestContext> {
    let router = Router(context: LiveRequestContext.self)
    let limits = configuration.limits
    router.ws("/live") { request, context in
        if let origin = request.headers[values: .origin].first(where: { !isOwnOrigin($0, request, tls: configuration.tls != nil) }) {
            throw APIError(.forbidden, "live sessions are only for this server's own page, not \(origin)")
        }
        if let access = configuration.access {
            let client = context.clientAddress ?? "unknown"
            if let wait = failures.lockedFor(client) { throw AccessRefusal.tooManyAttempts(retryAfter: wait) }
            let presented = AccessPolicy.presented(by: request)
            guard try access.admits(presented) || AccessGate.patient(presenting: presented, in: store) != nil else {
                if presented != .none { failures.record(client) }
                return .dontUpgrade
            }
        }
        return .upgrade([:])
    } onUpgrade: { inbound, outbound, context in
        let presented = AccessPolicy.presented(by: context.request)
        let patient = configuration.access?.admits(presented) == true ? nil : try AccessGate.patient(presenting: presented, in: store)
        var session = LiveSession(configuration: configuration, store: store, gate: live.gate, logger: context.logger, patient: patient)
        var rate = MessageRate(perSecond: limits.messagesPerSecond, burst: limits.messageBurst)
        do {
            for try await message in inbound.messages(maxSize: limits.maxMessageBytes) {
                let wait = rate.take(now: .now)
                if wait > .zero { try await Task.sleep(for: wait) }
                switch message {
                case let .text(text):
                    session.receive(text: text)
                case let .binary(buffer):
                    let began = ContinuousClock.now
                    buffer.withUnsafeReadableBytes { session.receive(binary: $0) }
                    live.chunkTimes.record(.now - began)
                }
                for text in session.takeOutbox() {
                    try await outbound.write(.text(text))
                }
                if session.shouldClose { break }
            }
        } catch {
            context.logger.notice("live connection failed", metadata: ["session": "\(session.sessionID.map(String.init) ?? "-")", "error": "\(error)"])
        }
        // Closed, dropped or failed without `stop`: save what was measured.
        session.disconnect()
    }
    return router
}

/// Whether an upgrade's `Origin` is this server's own page (`https://HOST:PORT` of the request's
/// authority). Browsers send http(s) origins, or `null` for pages without one; other clients send
/// what they like and are judged by their token alone.
func isOwnOrigin(_ origin: String, _ request: Request, tls: Bool) -> Bool {
    let lowered = origin.lowercased()
    guard lowered == "null" || lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return true }
    return lowered == "\(tls ? "https" : "http")://\(request.head.authority ?? "")".lowercased()
}

/// The `:id` of a session's route, or a 404 naming it.
func sessionID(_ context: some RequestContext) throws -> Int64 {
    let text = context.parameters.get("id") ?? ""
    guard let id = Int64(text), id > 0 else { throw APIError(.notFound, "no session \"\(text)\": session ids are positive whole numbers") }
    return id
}

/// An API error as `{"error": "..."}` with its status.
struct APIError: HTTPResponseError {
    var status: HTTPResponse.Status
    var message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        jsonResponse(LiveSession.encode(["error": message]), status: status)
    }
}

/// A request's body of at most `maxBytes`, or a 413 saying `what` may be at most that much JSON.
func collectBody(_ request: Request, upTo maxBytes: Int, what: String) async throws -> ByteBuffer {
    var request = request
    do {
        return try await request.collectBody(upTo: maxBytes)
    } catch {
        throw APIError(.contentTooLarge, "\(what) must be at most \(maxBytes) bytes of JSON")
    }
}

func jsonResponse(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
    Response(
        status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
        body: .init(byteBuffer: ByteBuffer(string: text)))
}
