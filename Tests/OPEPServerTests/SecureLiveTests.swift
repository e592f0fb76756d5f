import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import HummingbirdWSTesting
import Logging
import NIOSSL
import OPEPHistory
import OPEPKit
import OPEPSimulation
import XCTest
import TestSessions

@testable import OPEPServer

let bearer: HTTPFields = [.authorization: "Bearer \(testToken.text)"]

/// Streams the whole session on an open socket and returns every message up to the summary.
func streamSession(
    _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, _ messages: [ByteBuffer]
) async throws -> [[String: Any]] {
    var inbox = Inbox(inbound)
    try await outbound.write(.text(startMessage))
    return try await exchange(&inbox, outbound, messages.map { .binary($0) } + [.text(#"{"type": "stop"}"#)], until: "summary")
}

final class SecureLiveTests: XCTestCase {
    let messages = chunks(LiveTests.samples)

    func waitForSession(_ store: HistoryStore, id: Int64) async throws -> SessionDetail {
        for _ in 0..<200 {
            if let detail = try store.session(id), detail.session.status != .recording { return detail }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HistoryError("session \(id) was not saved")
    }

    func testLiveWithoutTheTokenIsNotUpgraded() async throws {
        let store = try HistoryStore()
        try await securedApp(store).test(.live) { client in
            for headers: HTTPFields in [[:], [.authorization: "Bearer wrong"], [.cookie: "opep_token=nope"]] {
                do {
                    try await client.ws("/live", configuration: .init(additionalHeaders: headers)) { _, _, _ in
                        XCTFail("upgraded without the token: \(headers)")
                    }
                    XCTFail("upgraded without the token: \(headers)")
                } catch {}
            }
            let close = try await client.ws("/live", configuration: .init(additionalHeaders: [.cookie: "opep_token=\(testToken.text)"])) { _, outbound, _ in
                try await outbound.write(.text(startMessage))
            }
            XCTAssertEqual(close?.closeCode, .normalClosure, "the cookie is enough")
            XCTAssertEqual(try store.sessions().count, 1, "only the session with the token started")
        }
    }

    func testLiveFromAnotherSitesPageIsRefused() async throws {
        let store = try HistoryStore()
        try await securedApp(store).test(.live) { client in
            let port = try XCTUnwrap(client.port)
            var foreign = bearer
            foreign[.origin] = "https://evil.example"
            do {
                try await client.ws("/live", configuration: .init(additionalHeaders: foreign)) { _, _, _ in
                    XCTFail("upgraded for another site's page")
                }
                XCTFail("upgraded for another site's page")
            } catch {}
            var own = bearer
            own[.origin] = "http://localhost:\(port)"
            let close = try await client.ws("/live", configuration: .init(additionalHeaders: own)) { inbound, outbound, _ in
                try await outbound.write(.text(startMessage))
                var inbox = Inbox(inbound)
                let first = try await inbox.next()
                XCTAssertEqual(first?["type"] as? String, "started")
                try await outbound.write(.text(#"{"type": "stop"}"#))
                _ = try await inbox.next("summary")
            }
            XCTAssertNotEqual(close?.closeCode, .policyViolation)
        }
    }

    func testAWholeSessionOverTLSWithTheToken() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opep-tls-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let certificate = ServerCertificate(besideDatabase: folder + "/history.sqlite")
        try certificate.makeSelfSignedIfNeeded(names: ["localhost"], addresses: ["127.0.0.1"])
        let tls = try certificate.tlsConfiguration()
        var client = TLSConfiguration.makeClientConfiguration()
        client.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate.certificatePath))
        let trusting = client
        let store = try HistoryStore()
        let messages = messages
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        let logger = quiet
        let collected = try await securedApp(store, { $0.tls = tls; $0.limits.messagesPerSecond = 10_000 }).test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let untrusting = TLSConfiguration.makeClientConfiguration()
            do {
                try await WebSocketClient.connect(
                    url: "wss://localhost:\(port)/live", configuration: .init(additionalHeaders: bearer), tlsConfiguration: untrusting,
                    logger: logger) { _, _, _ in XCTFail("a client that does not trust the certificate got in") }
                XCTFail("a client that does not trust the certificate got in")
            } catch {}
            let box = MessageBox()
            try await WebSocketClient.connect(
                url: "wss://localhost:\(port)/live", configuration: .init(maxFrameSize: 1 << 20, additionalHeaders: bearer),
                tlsConfiguration: trusting, logger: logger
            ) { inbound, outbound, _ in
                for message in try await streamSession(inbound, outbound, messages) { box.append(message) }
            }
            return box.messages
        }
        let id = try XCTUnwrap(collected.first?["session_id"] as? Int)
        XCTAssertEqual((collected.last?["summary"] as? [String: Any])?["breaths"] as? Int, 3)
        let saved = try await waitForSession(store, id: Int64(id))
        XCTAssertEqual(saved.session.status, .complete)
        XCTAssertEqual(saved.breaths, try analyse(LiveTests.samples).report.breaths)
    }

    /// Property test: while one good session streams, seeded random clients send garbage text,
    /// audio before `start`, second starts, out-of-order and odd-sized chunks, NaNs, oversized
    /// messages, bad rates and wrong or missing tokens. The good session keeps running and is
    /// saved exactly as the same session saved alone; every misbehaving client is answered
    /// (error message, refused upgrade, 1009 or 401), none hangs the server.
    func testAGoodSessionKeepsRunningAndLosesNothingWhileOthersMisbehave() async throws {
        let store = try HistoryStore()
        let messages = messages
        let limits: (inout ServerConfiguration) -> Void = { $0.limits.maxFailedTokens = 100_000; $0.limits.maxMessageBytes = 1 << 16 }
        let alone = try await securedApp(store, limits).test(.live) { client in
            let box = MessageBox()
            try await client.ws("/live", configuration: .init(maxFrameSize: 1 << 20, additionalHeaders: bearer)) { inbound, outbound, _ in
                for message in try await streamSession(inbound, outbound, messages) { box.append(message) }
            }
            return try XCTUnwrap(box.messages.first?["session_id"] as? Int)
        }
        let reference = try await waitForSession(store, id: Int64(alone))
        let referenceFrames = try XCTUnwrap(try store.frames(Int64(alone)))
        XCTAssertEqual(reference.breaths.count, 3)

        let outcomes = OutcomeBox()
        let good = try await securedApp(store, limits).test(.live) { client in
            try await withThrowingTaskGroup(of: Int?.self) { group in
                group.addTask {
                    let box = MessageBox()
                    try await client.ws("/live", configuration: .init(maxFrameSize: 1 << 20, additionalHeaders: bearer)) { inbound, outbound, _ in
                        for message in try await streamSession(inbound, outbound, messages) { box.append(message) }
                    }
                    XCTAssertFalse(box.messages.contains { $0["type"] as? String == "error" }, "the good session was refused something")
                    return box.messages.first?["session_id"] as? Int
                }
                for lane in 0..<3 {
                    group.addTask {
                        for seed in stride(from: UInt64(lane), to: 45, by: 3) {
                            outcomes.append(try await misbehave(client, seed: seed))
                        }
                        return nil
                    }
                }
                var id: Int?
                for try await result in group { id = id ?? result }
                return try XCTUnwrap(id)
            }
        }
        let saved = try await waitForSession(store, id: Int64(good))
        XCTAssertEqual(saved.session.status, .complete)
        XCTAssertEqual(saved.breaths, reference.breaths)
        XCTAssertEqual(saved.sets, reference.sets)
        XCTAssertEqual(saved.summary, reference.summary)
        XCTAssertEqual(try store.frames(Int64(good)), referenceFrames)

        let seen = outcomes.list
        XCTAssertEqual(seen.count, 45)
        for outcome in seen {
            XCTAssertTrue(outcome.answered, "\(outcome.attack) with seed \(outcome.seed) was not answered")
        }
        XCTAssertEqual(Set(seen.map(\.attack)), Set(Attack.allCases), "every kind of misbehaviour was tried")
    }
}

/// What a misbehaving client does.
enum Attack: CaseIterable {
    case noToken, wrongToken, wrongTokenOverHTTP, garbageText, audioBeforeStart, secondStart, outOfOrder, oddSizes, notANumber,
        oversized, badRate
}

struct Outcome {
    var attack: Attack
    var seed: UInt64
    var answered: Bool
}

final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [Outcome] = []
    func append(_ outcome: Outcome) { lock.withLock { outcomes.append(outcome) } }
    var list: [Outcome] { lock.withLock { outcomes } }
}

/// One seeded misbehaving client; `answered` when the server refused it as the protocol says.
func misbehave(_ client: some TestClientProtocol, seed: UInt64) async throws -> Outcome {
    var random = SeededGenerator(seed: 0x5EC0_0000 + seed)
    let attack = Attack.allCases[Int(seed) % Attack.allCases.count]
    func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) } }
    let wrong = String(decoding: bytes(24).map { UInt8(0x61 + $0 % 26) }, as: UTF8.self)
    switch attack {
    case .wrongTokenOverHTTP:
        let (uri, method) = apiRoutes.randomElement(using: &random)!
        let status = try await client.execute(uri: uri, method: method, headers: [.authorization: "Bearer \(wrong)"]) { $0.status }
        return Outcome(attack: attack, seed: seed, answered: status == .unauthorized)
    case .noToken, .wrongToken:
        let headers: HTTPFields = attack == .noToken ? [:] : [.authorization: "Bearer \(wrong)"]
        do {
            try await client.ws("/live", configuration: .init(additionalHeaders: headers)) { _, _, _ in }
            return Outcome(attack: attack, seed: seed, answered: false)
        } catch {
            return Outcome(attack: attack, seed: seed, answered: true)
        }
    default:
        break
    }
    /// Each message, and whether the server must refuse it with an `error` message.
    var script: [(WebSocketOutboundWriter.OutboundFrame, Bool)] = []
    let rate = [8000, 16000, 44100, 48000].randomElement(using: &random)!
    let start = WebSocketOutboundWriter.OutboundFrame.text(#"{"type": "start", "sample_rate": \#(rate)}"#)
    func chunk(_ sequence: UInt32, _ samples: Int, value: Float = 0.01) -> WebSocketOutboundWriter.OutboundFrame {
        .binary(chunkMessage(sequence, ArraySlice(repeating: value, count: samples)))
    }
    switch attack {
    case .garbageText:
        for _ in 0..<Int.random(in: 1...6, using: &random) {
            let texts = [
                String(decoding: bytes(Int.random(in: 0...200, using: &random)).map { 0x20 + $0 % 95 }, as: UTF8.self),
                #"{"type": "\#(wrong)"}"#, "[1, 2, 3]", #"{"type": 7}"#, "{", #"{"type": "start", "sample_rate": "fast"}"#,
            ]
            script.append((.text(texts.randomElement(using: &random)!), true))
        }
    case .audioBeforeStart:
        script = [(chunk(0, rate / 10), true), (start, false), (chunk(0, rate / 10), false)]
    case .secondStart:
        script = [(start, false), (chunk(0, rate / 10), false), (start, true)]
    case .outOfOrder:
        script = [(start, false), (chunk(UInt32.random(in: 1...1000, using: &random), rate / 10), true)]
    case .oddSizes:
        script = [(start, false)] + (0..<Int.random(in: 1...5, using: &random)).map { _ in
            (.binary(ByteBuffer(bytes: bytes([0, 1, 2, 3, 5, 6, 7, 9, 4099].randomElement(using: &random)!))), true)
        }
    case .notANumber:
        script = [(start, false), (chunk(0, rate / 10, value: .nan), true)]
    case .oversized:
        script = [(start, false), (.binary(ByteBuffer(bytes: bytes((1 << 16) + 4 * Int.random(in: 1...5000, using: &random)))), false)]
    case .badRate:
        script = [(.text(#"{"type": "start", "sample_rate": \#([0, 100, 7999, 192001, -48000].randomElement(using: &random)!)}"#), true)]
    case .noToken, .wrongToken, .wrongTokenOverHTTP:
        break
    }
    let steps = script
    let refusals = MessageBox()
    let close = try await client.ws("/live", configuration: .init(maxFrameSize: 1 << 20, additionalHeaders: bearer)) { inbound, outbound, _ in
        var inbox = Inbox(inbound)
        for (frame, refused) in steps {
            try await outbound.write(frame)
            guard refused else { continue }
            while let message = try await inbox.next() {
                if message["type"] as? String == "error" {
                    refusals.append(message)
                    break
                }
            }
        }
        if attack == .oversized {
            while try await inbox.next() != nil {}
        }
    }
    let answered = attack == .oversized
        ? close?.closeCode == .messageTooLarge
        : refusals.messages.count == steps.filter(\.1).count
    return Outcome(attack: attack, seed: seed, answered: answered)
}

