import Foundation
import Hummingbird
import HummingbirdCore
import OPEPHistory

/// Who may use the server: when set, every page, API call and `/live` connection must carry the
/// access token (`?token=` once, then the cookie; or `Authorization: Bearer`).
public struct AccessPolicy: Sendable {
    /// The secret to present.
    public var token: AccessToken
    /// Mark the cookie `Secure` (the server speaks HTTPS; browsers drop such cookies over plain
    /// HTTP except on localhost).
    public var secureCookie: Bool

    /// The cookie that keeps the token after the first visit.
    public static let cookieName = "opep_token"
    /// How long the browser keeps the cookie (400 days, the most browsers allow).
    public static let cookieMaxAge = 400 * 24 * 3600

    public init(token: AccessToken, secureCookie: Bool) {
        self.token = token
        self.secureCookie = secureCookie
    }

    /// Where a request carried a token.
    enum Presented: Equatable {
        case none
        case header(Substring)
        case query(Substring)
        case cookie(Substring)

        var value: Substring? {
            switch self {
            case .none: nil
            case let .header(value), let .query(value), let .cookie(value): value
            }
        }
    }

    /// The token a request presents: the `Authorization: Bearer` header first, then `?token=`,
    /// then the cookie.
    static func presented(by request: Request) -> Presented {
        if let authorization = request.headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return .header(parts[1].drop { $0 == " " }) }
            return .header("")
        }
        if let query = request.uri.queryParameters["token"] { return .query(query) }
        return cookie(named: cookieName, in: request).map { .cookie($0) } ?? .none
    }

    /// The value of the request's cookie `name`, if it sent one.
    static func cookie(named name: String, in request: Request) -> Substring? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let item = pair.drop { $0 == " " }
                if item.hasPrefix(name + "=") { return item.dropFirst(name.count + 1) }
            }
        }
        return nil
    }

    /// Whether the request carries the token.
    func admits(_ presented: Presented) -> Bool {
        presented.value.map(token.matches) ?? false
    }

    /// The `Set-Cookie` value that keeps the token in the browser.
    var cookie: String { Self.cookie(keeping: token.text, secure: secureCookie) }

    /// The `Set-Cookie` value that keeps `token` (the server's or a patient's) in the browser.
    static func cookie(keeping token: String, secure: Bool) -> String {
        setCookie(cookieName, token, maxAge: cookieMaxAge, secure: secure)
    }

    /// A `Set-Cookie` value for the whole site, kept `maxAge` seconds, out of scripts' reach and
    /// never sent from another site (`Secure` over HTTPS).
    static func setCookie(_ name: String, _ value: String, maxAge: Int, secure: Bool) -> String {
        "\(name)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly\(secure ? "; Secure" : ""); SameSite=Strict"
    }
}

/// Counts wrong tokens per client address; a client over the limit is refused (429) until the
/// window has passed since its oldest counted attempt.
public final class FailedAttempts: @unchecked Sendable {
    private let lock = NSLock()
    private var attempts: [String: [ContinuousClock.Instant]] = [:]
    /// Wrong tokens allowed per client within ``window``.
    public let limit: Int
    public let window: Duration
    /// Clients remembered at most (the oldest are forgotten first), so a flood of addresses
    /// cannot grow the table without bound.
    static let maxClients = 4096

    public init(limit: Int, window: Duration) {
        self.limit = limit
        self.window = window
    }

    /// Seconds until `client` may try again, or nil when it may now.
    func lockedFor(_ client: String, now: ContinuousClock.Instant = .now) -> Duration? {
        lock.withLock {
            let recent = (attempts[client] ?? []).filter { now - $0 < window }
            guard recent.count >= limit, let oldest = recent.first else { return nil }
            return window - (now - oldest)
        }
    }

    /// Counts one wrong token from `client`.
    func record(_ client: String, now: ContinuousClock.Instant = .now) {
        lock.withLock {
            if attempts[client] == nil, attempts.count >= Self.maxClients {
                attempts = attempts.filter { _, times in times.contains { now - $0 < window } }
                if attempts.count >= Self.maxClients, let oldest = attempts.min(by: { $0.value.last! < $1.value.last! })?.key {
                    attempts[oldest] = nil
                }
            }
            var recent = (attempts[client] ?? []).filter { now - $0 < window }
            recent.append(now)
            attempts[client] = Array(recent.suffix(limit))
        }
    }
}

/// Tells whose each request is, and requires a token where the server needs one, on every route
/// but the app's static files (its code, manifest, service worker and icons hold no health data,
/// and browsers fetch the manifest without cookies).
///
/// The server's own token (``AccessPolicy``) opens the whole history; a patient's token (``Patient``,
/// from `opep clinic add-patient`) opens that patient's plan and sessions only, and is taken with or
/// without a policy; a clinician's sign-in cookie (``ClinicianSignIn``) opens their patients'
/// sessions and the clinic's API. The clinic's pages and API (`/clinic`, `/api/clinic/...`) need no
/// token: their handlers ask for the sign-in, and the sign-in counts wrong passwords as wrong
/// tokens. Without a policy (a personal server on loopback) a request with none of these is the
/// owner's, as before.
///
/// A page opened with a right `?token=` is redirected to the same address without it and the token
/// is kept in an `HttpOnly`, `SameSite=Strict` cookie (`Secure` over HTTPS). Where a policy is set,
/// a missing or wrong token is answered 401 (JSON under `/api`, a short page elsewhere), and a
/// client that sent ``FailedAttempts/limit`` wrong tokens within the window gets 429 until it has
/// passed.
struct AccessGate: RouterMiddleware {
    let policy: AccessPolicy?
    let store: HistoryStore
    let failures: FailedAttempts
    /// Whether the server speaks HTTPS (a patient's cookie is then `Secure`).
    let secure: Bool

    static func isPublic(_ path: String) -> Bool {
        path.hasPrefix("/assets/") || path == "/manifest.webmanifest" || path == "/sw.js"
    }

    /// The clinicians' pages and API, which ask for a clinician's sign-in instead of a token.
    static func isClinic(_ path: String) -> Bool {
        path == "/clinic" || path.hasPrefix("/clinic/") || path.hasPrefix("/api/clinic/")
    }

    func handle(
        _ request: Request, context: ServerRequestContext, next: (Request, ServerRequestContext) async throws -> Response
    ) async throws -> Response {
        if Self.isPublic(request.uri.path) { return try await next(request, context) }
        var context = context
        if Self.isClinic(request.uri.path) {
            context.clinician = try ClinicianSignIn.clinician(of: request, in: store)
            return try await next(request, context)
        }
        let client = context.clientAddress ?? "unknown"
        if policy != nil, let wait = failures.lockedFor(client) { throw AccessRefusal.tooManyAttempts(retryAfter: wait) }
        let presented = AccessPolicy.presented(by: request)
        var kept: String?
        if let policy, policy.admits(presented) {
            kept = policy.token.text
        } else if let patient = try Self.patient(presenting: presented, in: store) {
            context.patient = patient
            kept = presented.value.map(String.init)
        } else if let clinician = try ClinicianSignIn.clinician(of: request, in: store) {
            context.clinician = clinician
        } else if policy != nil {
            if presented != .none { failures.record(client) }
            throw AccessRefusal.missingToken(api: request.uri.path.hasPrefix("/api/"), wrong: presented != .none)
        }
        if case .query = presented, let kept, request.method == .get, !request.uri.path.hasPrefix("/api/") {
            var response = Response(status: .seeOther)
            response.headers[.location] = Self.addressWithoutToken(request.uri)
            response.headers[.setCookie] = AccessPolicy.cookie(keeping: kept, secure: policy?.secureCookie ?? secure)
            response.headers[.cacheControl] = "no-store"
            return response
        }
        return try await next(request, context)
    }

    /// The patient whose token was presented, if any (a text that cannot be a token is looked up in vain).
    static func patient(presenting presented: AccessPolicy.Presented, in store: HistoryStore) throws -> Patient? {
        guard let value = presented.value, let token = AccessToken(text: String(value)) else { return nil }
        return try store.patient(presenting: token.text)
    }

    /// The request's path and query, the `token` parameter removed.
    static func addressWithoutToken(_ uri: URI) -> String {
        let kept = (uri.query ?? "").split(separator: "&").filter { !($0 == "token" || $0.hasPrefix("token=")) }
        return uri.path + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }
}

/// A request refused for want of the token.
enum AccessRefusal: HTTPResponseError {
    case missingToken(api: Bool, wrong: Bool)
    case tooManyAttempts(retryAfter: Duration)

    var status: HTTPResponse.Status {
        switch self {
        case .missingToken: .unauthorized
        case .tooManyAttempts: .tooManyRequests
        }
    }

    var message: String {
        switch self {
        case let .missingToken(_, wrong):
            wrong
                ? "wrong access token: open the address `opep serve` printed (with ?token=), or send Authorization: Bearer TOKEN"
                : "this server needs its access token: open the address `opep serve` printed (with ?token=), or send Authorization: Bearer TOKEN"
        case let .tooManyAttempts(wait):
            "too many wrong access tokens from this address: try again in \(Int(wait.components.seconds) + 1) s"
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response: Response
        if case .missingToken(api: false, _) = self {
            response = Response(
                status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: Self.page(message))))
        } else {
            response = jsonResponse(LiveSession.encode(["error": message]), status: status)
        }
        switch self {
        case .missingToken: response.headers[.wwwAuthenticate] = #"Bearer realm="opep""#
        case let .tooManyAttempts(wait): response.headers[.retryAfter] = "\(Int(wait.components.seconds) + 1)"
        }
        return response
    }

    static func page(_ message: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>opep: access token needed</title></head>
        <body><h1>This coach needs its access address</h1>
        <p>Open the address that <code>opep serve</code> printed when it started (it ends in <code>?token=…</code>), or scan its QR code with the phone's camera. The browser keeps the token afterwards.</p>
        <p>(\(message.replacingOccurrences(of: "<", with: "&lt;")))</p></body></html>

        """
    }
}
