import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import OPEPHistory
import OPEPKit

/// The `opep serve` application: the dashboard's files, the JSON API and the `/live` WebSocket,
/// all over one port (see `docs/live-protocol.md`).
/// - Parameter onServerRunning: called with the port actually bound (useful with port 0).
public func buildApplication(
    _ configuration: ServerConfiguration, store: HistoryStore, logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let gate = SessionGate(limit: configuration.limits.maxSessions)
    let router = buildRouter(configuration, store: store, logger: logger)
    let webSocketRouter = buildWebSocketRouter(configuration, store: store, gate: gate)
    return Application(
        router: router,
        server: .http1WebSocketUpgrade(
            webSocketRouter: webSocketRouter,
            configuration: .init(ws: .init(maxFrameSize: configuration.limits.maxMessageBytes))),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "opep"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger
    )
}

/// The HTTP routes: the dashboard's pages and assets and the JSON API.
public func buildRouter(_ configuration: ServerConfiguration, store: HistoryStore, logger: Logger) -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    if !configuration.uploadOrigins.isEmpty {
        router.add(middleware: UploadOrigins(origins: configuration.uploadOrigins))
    }
    let files = DashboardFiles()
    let api = HistoryAPI(
        store: store, maxRequestBytes: configuration.limits.maxRequestBytes, maxDocumentBytes: configuration.limits.maxDocumentBytes)

    router.get("/") { _, _ in try files.response(for: ["index.html"]) }
    router.get("/history") { _, _ in try files.response(for: ["history.html"]) }
    router.get("/sessions/:id") { _, context in
        _ = try sessionID(context)
        return try files.response(for: ["session.html"])
    }
    router.get("/manifest.webmanifest") { _, _ in try files.response(for: ["manifest.webmanifest"]) }
    router.get("/sw.js") { _, _ in try files.response(for: ["sw.js"]) }
    router.get("/assets/**") { _, context in
        try files.response(for: context.parameters.getCatchAll().map(String.init), underAssets: true)
    }

    router.get("/api/plan") { _, _ in try api.plan() }
    router.put("/api/plan") { request, context in try await api.savePlan(request, context: context) }
    router.get("/api/sessions") { request, _ in try api.sessions(request) }
    router.post("/api/sessions") { request, _ in try await api.importSession(request) }
    router.get("/api/sessions/:id") { _, context in try api.session(sessionID(context)) }
    router.get("/api/sessions/:id/frames") { _, context in try api.frames(sessionID(context)) }
    router.get("/api/sessions/:id/export.csv") { _, context in try api.exportCSV(sessionID(context)) }
    router.get("/api/sessions/:id/export.json") { _, context in try api.exportJSON(sessionID(context)) }
    router.get("/api/trends") { request, _ in try api.trends(request) }
    router.on("/api/**", method: .get) { request, _ -> Response in throw APIError(.notFound, "no such API: \(request.uri.path)") }
    return router
}

/// The `/live` WebSocket route.
public func buildWebSocketRouter(
    _ configuration: ServerConfiguration, store: HistoryStore, gate: SessionGate
) -> Router<BasicWebSocketRequestContext> {
    let router = Router(context: BasicWebSocketRequestContext.self)
    router.ws("/live") { inbound, outbound, context in
        var session = LiveSession(configuration: configuration, store: store, gate: gate, logger: context.logger)
        do {
            for try await message in inbound.messages(maxSize: configuration.limits.maxMessageBytes) {
                switch message {
                case let .text(text):
                    session.receive(text: text)
                case let .binary(buffer):
                    buffer.withUnsafeReadableBytes { session.receive(binary: $0) }
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

func jsonResponse(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
    Response(
        status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
        body: .init(byteBuffer: ByteBuffer(string: text)))
}
