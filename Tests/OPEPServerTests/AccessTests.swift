import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import OPEPHistory
import XCTest

@testable import OPEPServer

let testToken = AccessToken(text: "0123456789abcdefghijklmnopqrstuv")!

/// The server with the access token required (as beyond loopback).
func securedApp(
    _ store: HistoryStore, secureCookie: Bool = true, _ change: (inout ServerConfiguration) -> Void = { _ in }
) throws -> some ApplicationProtocol {
    var configuration = ServerConfiguration(port: 0)
    configuration.access = AccessPolicy(token: testToken, secureCookie: secureCookie)
    change(&configuration)
    var logger = Logger(label: "test")
    logger.logLevel = .critical
    return try buildApplication(configuration, store: store, logger: logger)
}

let apiRoutes: [(String, HTTPRequest.Method)] = [
    ("/api/plan", .get), ("/api/plan", .put), ("/api/sessions", .get), ("/api/sessions", .post), ("/api/sessions/1", .get),
    ("/api/sessions/1/frames", .get), ("/api/sessions/1/export.csv", .get), ("/api/sessions/1/export.json", .get),
    ("/api/trends", .get), ("/api/nothing", .get),
]
let pageRoutes = ["/", "/history", "/sessions/1"]

final class AccessTokenTests: XCTestCase {
    func testTokensAreLongRandomAndComparedWhole() {
        let tokens = (0..<200).map { _ in AccessToken.random() }
        XCTAssertEqual(Set(tokens.map(\.text)).count, 200)
        for token in tokens {
            XCTAssertEqual(token.text.count, 32, "192 bits in URL-safe base64")
            XCTAssertNotNil(AccessToken(text: token.text))
        }
        let token = tokens[0]
        XCTAssertTrue(token.matches(token.text))
        XCTAssertFalse(token.matches(token.text.dropLast()))
        XCTAssertFalse(token.matches(token.text + "x"))
        XCTAssertFalse(token.matches(""))
        XCTAssertFalse(token.matches(tokens[1].text))
        var flipped = Array(token.text)
        flipped[31] = flipped[31] == "A" ? "B" : "A"
        XCTAssertFalse(token.matches(String(flipped)))
        XCTAssertFalse(token.description.contains(token.text), "never printed")
        XCTAssertNil(AccessToken(text: "short"))
        XCTAssertNil(AccessToken(text: String(repeating: "a", count: 31) + "!"))
    }

    func testTheTokenFileIsPrivateKeptAndReplaced() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opep-token-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = AccessTokenFile(besideDatabase: folder + "/history.sqlite")
        XCTAssertEqual(file.path, folder + "/opep-token")
        let (first, created) = try file.loadOrCreate()
        XCTAssertTrue(created)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int, 0o600)
        let (again, createdAgain) = try file.loadOrCreate()
        XCTAssertEqual(again, first)
        XCTAssertFalse(createdAgain)

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        _ = try file.loadOrCreate()
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int, 0o600, "made private again")

        let (replaced, _) = try file.loadOrCreate(replace: true)
        XCTAssertNotEqual(replaced, first)
        XCTAssertEqual(try file.loadOrCreate().token, replaced)

        try "not a token\n".write(toFile: file.path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try file.loadOrCreate()) { error in
            XCTAssertEqual(error as? AccessTokenError, .malformed(path: file.path))
            XCTAssertTrue("\(error)".hasPrefix(file.path + ": "))
        }
    }

    func testWrongTokensAreCountedPerClientWithinTheWindow() {
        let attempts = FailedAttempts(limit: 3, window: .seconds(60))
        let start = ContinuousClock.now
        for second in 0..<3 {
            XCTAssertNil(attempts.lockedFor("10.0.0.1", now: start + .seconds(second)))
            attempts.record("10.0.0.1", now: start + .seconds(second))
        }
        XCTAssertEqual(attempts.lockedFor("10.0.0.1", now: start + .seconds(10)), .seconds(50))
        XCTAssertNil(attempts.lockedFor("10.0.0.2", now: start + .seconds(10)), "another client is not locked out")
        XCTAssertNil(attempts.lockedFor("10.0.0.1", now: start + .seconds(61)), "the oldest attempt has left the window")
    }

    func testFloodsOfMessagesWaitAtTheAverageRate() {
        var rate = MessageRate(perSecond: 10, burst: 5)
        let start = ContinuousClock.now
        let waits = (0..<8).map { _ in rate.take(now: start) }
        XCTAssertEqual(waits.prefix(5), [.zero, .zero, .zero, .zero, .zero])
        XCTAssertEqual(waits[5], .milliseconds(100))
        XCTAssertEqual(waits[7], .milliseconds(300))
        var steady = MessageRate(perSecond: 10, burst: 5)
        for tenth in 0..<100 {
            XCTAssertEqual(steady.take(now: start + .milliseconds(100 * tenth)), .zero, "a page sending 10 chunks a second never waits")
        }
    }
}

final class AccessRouteTests: XCTestCase {
    func testEveryAPIRouteAndPageRefusesAMissingOrWrongToken() async throws {
        let store = try HistoryStore()
        try await securedApp(store, { $0.limits.maxFailedTokens = 1000 }).test(.router) { client in
            for presented: HTTPFields in [[:], [.authorization: "Bearer wrong-token"], [.cookie: "opep_token=\(testToken.text)x"]] {
                for (uri, method) in apiRoutes {
                    try await client.execute(uri: uri, method: method, headers: presented, body: ByteBuffer(string: "{}")) { response in
                        XCTAssertEqual(response.status, .unauthorized, "\(method) \(uri) \(presented)")
                        XCTAssertEqual(response.headers[.wwwAuthenticate], #"Bearer realm="opep""#)
                        XCTAssertNotNil(try json(response.body)["error"] as? String, uri)
                    }
                }
                for uri in pageRoutes {
                    try await client.execute(uri: uri, method: .get, headers: presented) { response in
                        XCTAssertEqual(response.status, .unauthorized, uri)
                        XCTAssertEqual(response.headers[.contentType], "text/html; charset=utf-8")
                        XCTAssertTrue(String(buffer: response.body).contains("?token="), uri)
                    }
                }
            }
            try await client.execute(uri: "/?token=\(testToken.text.dropLast())", method: .get) { response in
                XCTAssertEqual(response.status, .unauthorized, "a wrong token in the address")
                XCTAssertNil(response.headers[.setCookie])
            }
            let plan = try store.plan()
            XCTAssertEqual(plan, .standard, "the refused PUT saved nothing")
            XCTAssertEqual(try store.sessions().count, 0, "the refused POST imported nothing")
        }
    }

    func testTheTokenInTheAddressBecomesACookieAndLeavesTheAddress() async throws {
        let store = try HistoryStore()
        for secure in [true, false] {
            try await securedApp(store, secureCookie: secure).test(.router) { client in
                let cookie = try await client.execute(uri: "/?engine=server&token=\(testToken.text)&x=1", method: .get) { response in
                    XCTAssertEqual(response.status, .seeOther)
                    XCTAssertEqual(response.headers[.location], "/?engine=server&x=1")
                    let cookie = try XCTUnwrap(response.headers[.setCookie])
                    let attributes = Set(cookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
                    XCTAssertTrue(attributes.contains("opep_token=\(testToken.text)"))
                    XCTAssertTrue(attributes.isSuperset(of: ["HttpOnly", "SameSite=Strict", "Path=/"]))
                    XCTAssertEqual(attributes.contains("Secure"), secure)
                    return String(cookie.prefix { $0 != ";" })
                }
                try await client.execute(uri: "/history?token=\(testToken.text)", method: .get) { response in
                    XCTAssertEqual(response.headers[.location], "/history")
                }
                for uri in pageRoutes {
                    try await client.execute(uri: uri, method: .get, headers: [.cookie: "theme=dark; \(cookie)"]) { response in
                        XCTAssertEqual(response.status, .ok, uri)
                    }
                }
                try await client.execute(uri: "/api/plan", method: .get, headers: [.cookie: cookie]) { response in
                    XCTAssertEqual(response.status, .ok)
                }
            }
        }
    }

    func testBearerTokensServeScriptsAndStaticFilesNeedNone() async throws {
        let store = try HistoryStore()
        try await securedApp(store).test(.router) { client in
            let bearer: HTTPFields = [.authorization: "Bearer \(testToken.text)"]
            try await client.execute(uri: "/api/plan", method: .get, headers: bearer) { response in
                XCTAssertEqual(response.status, .ok)
            }
            try await client.execute(uri: "/api/sessions", method: .get, headers: bearer) { response in
                XCTAssertEqual(response.status, .ok)
            }
            try await client.execute(uri: "/api/sessions/1", method: .get, headers: bearer) { response in
                XCTAssertEqual(response.status, .notFound, "past the gate, the route answers")
            }
            try await client.execute(uri: "/?token=\(testToken.text)", method: .get, headers: bearer) { response in
                XCTAssertEqual(response.status, .ok, "a script with the header is not redirected")
            }
            for uri in ["/assets/app.js", "/assets/style.css", "/assets/opep-engine.wasm", "/manifest.webmanifest", "/sw.js"] {
                try await client.execute(uri: uri, method: .get) { response in
                    XCTAssertEqual(response.status, .ok, uri)
                }
            }
        }
    }

    func testSecurityHeadersOnEveryResponse() async throws {
        let store = try HistoryStore()
        for secured in [true, false] {
            let run: @Sendable (any TestClientProtocol) async throws -> Void = { client in
                for uri in ["/", "/history", "/assets/app.js", "/api/plan", "/api/nothing", "/nothing", "/?token=x"] {
                    try await client.execute(uri: uri, method: .get) { response in
                        let policy = try XCTUnwrap(response.headers[.contentSecurityPolicy], uri)
                        XCTAssertTrue(policy.contains("frame-ancestors 'none'"), uri)
                        XCTAssertTrue(policy.contains("script-src 'self' 'wasm-unsafe-eval'"), uri)
                        XCTAssertFalse(policy.contains("unsafe-inline"), uri)
                        XCTAssertEqual(response.headers[.xContentTypeOptions], "nosniff", uri)
                        XCTAssertEqual(response.headers[HTTPFields.Element.Name("Referrer-Policy")!], "no-referrer", uri)
                    }
                }
            }
            if secured {
                try await securedApp(store).test(.router, run)
            } else {
                var logger = Logger(label: "test")
                logger.logLevel = .critical
                try await buildApplication(ServerConfiguration(port: 0), store: store, logger: logger).test(.router, run)
            }
        }
    }

    func testThePhonesCoachOnAnotherOriginSendsSessionsWithTheBearerToken() async throws {
        let store = try HistoryStore()
        let origin = "https://coach.example.org"
        try await securedApp(store, { $0.uploadOrigins = [origin] }).test(.router) { client in
            let preflight: HTTPFields = [.origin: origin, .accessControlRequestMethod: "POST", .accessControlRequestHeaders: "authorization"]
            try await client.execute(uri: "/api/sessions", method: .options, headers: preflight) { response in
                XCTAssertEqual(response.status, .noContent, "preflights carry no credentials")
                XCTAssertEqual(response.headers[.accessControlAllowHeaders], "Content-Type, Authorization")
            }
            try await client.execute(uri: "/api/sessions", method: .post, headers: [.origin: origin], body: ByteBuffer(string: "{}")) { response in
                XCTAssertEqual(response.status, .unauthorized)
                XCTAssertEqual(response.headers[.accessControlAllowOrigin], origin, "the page can read why")
            }
            var sent = bearer
            sent[.origin] = origin
            try await client.execute(uri: "/api/sessions", method: .post, headers: sent, body: ByteBuffer(string: "{}")) { response in
                XCTAssertEqual(response.status, .badRequest, "past the gate: the document itself is checked")
                XCTAssertEqual(response.headers[.accessControlAllowOrigin], origin)
            }
        }
    }

    func testAClientThatSendsTooManyWrongTokensIsRefusedForAWhile() async throws {
        let store = try HistoryStore()
        try await securedApp(store, { $0.limits.maxFailedTokens = 3 }).test(.router) { client in
            for _ in 0..<5 {
                try await client.execute(uri: "/api/plan", method: .get) { response in
                    XCTAssertEqual(response.status, .unauthorized, "a missing token is not an attempt")
                }
            }
            for attempt in 0..<3 {
                try await client.execute(uri: "/api/plan", method: .get, headers: [.authorization: "Bearer guess\(attempt)"]) { response in
                    XCTAssertEqual(response.status, .unauthorized)
                }
            }
            for headers: HTTPFields in [[.authorization: "Bearer guess"], [.authorization: "Bearer \(testToken.text)"], [:]] {
                try await client.execute(uri: "/api/plan", method: .get, headers: headers) { response in
                    XCTAssertEqual(response.status, .tooManyRequests, "\(headers)")
                    let wait = try XCTUnwrap(Int(response.headers[.retryAfter] ?? ""))
                    XCTAssertTrue((1...60).contains(wait))
                    XCTAssertNotNil(try json(response.body)["error"] as? String)
                }
            }
            try await client.execute(uri: "/assets/app.js", method: .get) { response in
                XCTAssertEqual(response.status, .ok, "the app's files stay open")
            }
        }
    }
}
