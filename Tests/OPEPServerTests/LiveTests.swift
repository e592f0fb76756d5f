import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import HummingbirdWSTesting
import Logging
import OPEPHistory
import OPEPKit
import XCTest
import TestSessions

@testable import OPEPServer

/// A binary message: the sequence number, then the samples, little-endian.
func chunkMessage(_ sequence: UInt32, _ samples: ArraySlice<Float>) -> ByteBuffer {
    var buffer = ByteBuffer()
    buffer.reserveCapacity(4 + samples.count * 4)
    buffer.writeInteger(sequence, endianness: .little)
    for sample in samples { buffer.writeInteger(sample.bitPattern, endianness: .little) }
    return buffer
}

/// The session in ~100 ms chunks at 16 kHz.
func chunks(_ samples: [Float], size: Int = 1600) -> [ByteBuffer] {
    stride(from: 0, to: samples.count, by: size).enumerated().map { index, start in
        chunkMessage(UInt32(index), samples[start..<min(samples.count, start + size)])
    }
}

/// Decoded text messages.
struct Inbox {
    var iterator: WebSocketInboundMessageStream.AsyncIterator

    init(_ inbound: WebSocketInboundStream) {
        iterator = inbound.messages(maxSize: 1 << 22).makeAsyncIterator()
    }

    mutating func next() async throws -> [String: Any]? {
        while let message = try await iterator.next() {
            guard case let .text(text) = message else { continue }
            return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
        }
        return nil
    }

    /// The next message of `type`, skipping others (live, frames, status, events).
    mutating func next(_ type: String) async throws -> [String: Any] {
        while let message = try await next() {
            if message["type"] as? String == type { return message }
        }
        XCTFail("the connection ended before a \(type) message")
        return [:]
    }
}

let startMessage = #"{"type": "start", "sample_rate": 16000}"#

/// Writes `frames` (then closes, when `closing`) while reading what the server answers, until a
/// message of type `until` or the end of the connection; returns what was read. Writing a whole
/// session before reading would let both sides' socket buffers fill, each side waiting on the other.
func exchange(
    _ inbox: inout Inbox, _ outbound: WebSocketOutboundWriter, _ frames: [WebSocketOutboundWriter.OutboundFrame],
    closing: Bool = false, until type: String? = nil
) async throws -> [[String: Any]] {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            for frame in frames { try await outbound.write(frame) }
            if closing { try await outbound.close(.goingAway, reason: nil) }
        }
        var read: [[String: Any]] = []
        while let message = try await inbox.next() {
            read.append(message)
            if let type, message["type"] as? String == type { break }
        }
        try await group.waitForAll()
        return read
    }
}

final class LiveTests: XCTestCase {
    static let samples: [Float] = try! simulatedSession(breaths: 3)

    func app(_ store: HistoryStore, _ change: (inout ServerConfiguration) -> Void = { _ in }) throws -> some ApplicationProtocol {
        var configuration = ServerConfiguration(port: 0)
        configuration.limits.messagesPerSecond = 10_000  // these tests stream faster than real time
        change(&configuration)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return try buildApplication(configuration, store: store, logger: logger)
    }

    let client = WebSocketClientConfiguration(maxFrameSize: 1 << 20)

    /// Waits until the session is saved with a status other than recording.
    func waitForSession(_ store: HistoryStore, id: Int64) async throws -> SessionDetail {
        for _ in 0..<200 {
            if let detail = try store.session(id), detail.session.status != .recording { return detail }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HistoryError("session \(id) was not saved")
    }

    /// Kept audio is health data: its folder is its owner's only, the recording too.
    func testKeptAudioIsReadableByItsOwnerOnly() async throws {
        let store = try HistoryStore()
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("opep-audio-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        let messages = chunks(Array(Self.samples.prefix(16000 * 3)))
        let configuration = client
        _ = try await app(store, { $0.keepAudio = true; $0.audioFolder = folder }).test(.live) { client in
            try await client.ws("/live", configuration: configuration) { inbound, outbound, _ in
                _ = try await streamSession(inbound, outbound, messages)
            }
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        XCTAssertEqual(files.count, 1, "\(files)")
        func mode(_ path: String) throws -> Int? {
            try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        }
        XCTAssertEqual(try mode(folder), 0o700)
        for file in files {
            XCTAssertEqual(try mode((folder as NSString).appendingPathComponent(file)), 0o600, file)
        }
    }

    func testAWholeSessionStreamsLiveFramesEventsAndASummaryAndIsSaved() async throws {
        let store = try HistoryStore()
        let messages = chunks(Self.samples)
        let configuration = client
        // Every live frame is sent: the test streams faster than real time, so with the 50 ms
        // interval which frames went out (and whether one held a pitch) depended on the clock.
        let collected = try await app(store, { $0.statusInterval = .zero; $0.liveInterval = .zero }).test(.live) { client in
            let box = MessageBox()
            try await client.ws("/live", configuration: configuration) { inbound, outbound, _ in
                for message in try await streamSession(inbound, outbound, messages) { box.append(message) }
            }
            return box
        }.messages
        let types = collected.compactMap { $0["type"] as? String }
        XCTAssertEqual(types.first, "started")
        XCTAssertEqual(types.last, "summary")
        XCTAssertFalse(types.contains("error"), "\(collected.filter { $0["type"] as? String == "error" })")
        let started = collected[0]
        let id = try XCTUnwrap(started["session_id"] as? Int)
        XCTAssertEqual(started["sample_rate"] as? Double, 16000)
        let frameInterval = try FlutterPitchTracker(configuration: .init(sampleRate: 16000)).frameInterval
        XCTAssertEqual(started["frame_interval_s"] as? Double, frameInterval, "the engine's frames at 16 kHz")
        XCTAssertNotNil(started["latency_s"] as? Double)
        XCTAssertNotNil(started["plan"] as? [String: Any])

        let live = collected.filter { $0["type"] as? String == "live" }
        XCTAssertFalse(live.isEmpty)
        let seqs = live.compactMap { $0["seq"] as? Int }
        XCTAssertEqual(seqs, seqs.sorted())
        XCTAssertTrue(live.contains { $0["pitch_hz"] is Double && $0["zone"] is String }, "some live frame hears the flutter")
        for frame in live {
            XCTAssertEqual(Set(frame.keys), [
                "type", "t", "seq", "pitch_hz", "pressure_cmh2o", "zone", "exhaling", "confidence", "level_db", "warning", "advice",
            ])
            let warning = (frame["warning"] as? String).flatMap(SignalProblem.init(rawValue:))
            XCTAssertEqual(frame["advice"] as? String, warning.map { $0.advice.description }, "the advice is the warning's sentence")
            XCTAssertEqual(frame["warning"] is NSNull, frame["advice"] is NSNull)
        }

        let events = collected.filter { $0["type"] as? String == "event" }
        let ended = events.filter { $0["kind"] as? String == "breath_ended" }
        XCTAssertEqual(ended.count, 3)
        XCTAssertEqual(ended.compactMap { $0["breath_in_set"] as? Int }, [1, 2, 3])
        XCTAssertTrue(ended.allSatisfy { $0["mean_pressure_cmh2o"] is Double && $0["share_in_target"] is Double && $0["duration_s"] is Double })
        for breath in ended {
            XCTAssertGreaterThan(breath["flutter_share"] as? Double ?? 0, 0.6, "the placement check's figures come with each ended breath")
            let signal = try XCTUnwrap(breath["signal"] as? [String: Any])
            XCTAssertGreaterThan(signal["snr_db"] as? Double ?? 0, 15)
            XCTAssertGreaterThan(signal["modulation"] as? Double ?? 0, 0.2)
            XCTAssertNil(signal["problem"], "heard clearly")
            XCTAssertNil(breath["advice"])
        }
        XCTAssertEqual(events.filter { $0["kind"] as? String == "breath_started" }.count, 3)
        XCTAssertEqual(events.filter { $0["kind"] as? String == "set_ended" }.count, 1)

        let trace = collected.filter { $0["type"] as? String == "frames" }.flatMap { ($0["frames"] as? [[Any]]) ?? [] }
        let duration = Double(Self.samples.count) / 16000
        let kept = frameInterval * (0.05 / frameInterval).rounded()
        XCTAssertEqual(Double(trace.count), duration / kept, accuracy: 10, "final frames at 20 per second")
        let times = trace.compactMap { $0.first as? Double }
        XCTAssertEqual(times, times.sorted())

        let status = collected.filter { $0["type"] as? String == "status" }
        XCTAssertFalse(status.isEmpty)
        XCTAssertEqual(Set(status[0].keys), ["type", "breaths", "breaths_in_set", "sets", "elapsed_s", "hearing_device", "level_db"])

        let summary = try XCTUnwrap(collected.last)
        XCTAssertEqual(summary["session_id"] as? Int, id)
        XCTAssertEqual((summary["summary"] as? [String: Any])?["breaths"] as? Int, 3)
        XCTAssertEqual((summary["breaths"] as? [Any])?.count, 3)

        let saved = try await waitForSession(store, id: Int64(id))
        XCTAssertEqual(saved.session.status, .complete)
        XCTAssertEqual(saved.session.source, .browser)
        XCTAssertEqual(saved.breaths.count, 3)
        XCTAssertEqual(try store.frames(Int64(id))?.count, trace.count)
    }

    /// `GET /api/health` counts every chunk the server took, with the quantiles of its time over them.
    func testHealthReportsTheTimeOverEveryChunk() async throws {
        let store = try HistoryStore()
        let messages = chunks(Self.samples)
        let configuration = client
        let health = try await app(store).test(.live) { client -> [String: Any] in
            let before = try await client.execute(uri: "/api/health", method: .get) { response in
                try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
            }
            XCTAssertEqual((before?["chunk_times"] as? [String: Any])?["chunks"] as? Int, 0)
            try await client.ws("/live", configuration: configuration) { inbound, outbound, _ in
                _ = try await streamSession(inbound, outbound, messages)
            }
            return try await client.execute(uri: "/api/health", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            }
        }
        XCTAssertEqual(health["live_sessions"] as? Int, 0)
        XCTAssertEqual(health["max_live_sessions"] as? Int, 8)
        let times = try XCTUnwrap(health["chunk_times"] as? [String: Any])
        XCTAssertEqual(times["chunks"] as? Int, messages.count)
        let p50 = try XCTUnwrap(times["p50_ms"] as? Double), p99 = try XCTUnwrap(times["p99_ms"] as? Double)
        let longest = try XCTUnwrap(times["max_ms"] as? Double)
        XCTAssertGreaterThan(p50, 0)
        XCTAssertLessThanOrEqual(p50, p99)
        XCTAssertLessThanOrEqual(p99, longest)
    }

    func testMalformedMessagesGetErrorsAndTheSessionGoesOn() async throws {
        let store = try HistoryStore()
        let samples = Self.samples
        let configuration = client
        let summary = try await app(store, { $0.statusInterval = .seconds(3600) }).test(.live) { client in
            let box = MessageBox()
            try await client.ws("/live", configuration: configuration) { inbound, outbound, _ in
                var inbox = Inbox(inbound)
                func expectError(_ containing: String, file: StaticString = #filePath, line: UInt = #line) async throws {
                    let message = try await inbox.next()
                    XCTAssertEqual(message?["type"] as? String, "error", file: file, line: line)
                    let text = message?["message"] as? String ?? ""
                    XCTAssertTrue(text.contains(containing), "\"\(text)\" should mention \"\(containing)\"", file: file, line: line)
                }
                try await outbound.write(.text("not json {"))
                try await expectError("not JSON")
                try await outbound.write(.text(#"{"type": "dance"}"#))
                try await expectError("unknown message type")
                try await outbound.write(.text(#"{"hello": 1}"#))
                try await expectError("type")
                try await outbound.write(.binary(chunkMessage(0, samples[0..<1600])))
                try await expectError("audio before start")
                try await outbound.write(.text(#"{"type": "start", "sample_rate": 4000}"#))
                try await expectError("sample_rate")
                try await outbound.write(.text(#"{"type": "start", "sample_rate": 16000, "plan": {"sets": 0}}"#))
                try await expectError("plan")
                try await outbound.write(.text(startMessage))
                let started = try await inbox.next()
                XCTAssertEqual(started?["type"] as? String, "started")
                try await outbound.write(.text(startMessage))
                try await expectError("second start")
                try await outbound.write(.binary(ByteBuffer(bytes: [0, 0, 0])))
                try await expectError("4-byte sequence number")
                try await outbound.write(.binary(ByteBuffer(bytes: [0, 0, 0, 0, 1, 2])))
                try await expectError("multiple of 4 bytes")
                try await outbound.write(.binary(chunkMessage(0, ArraySlice(repeating: 0, count: 16001))))
                try await expectError("at most 16000 samples")
                try await outbound.write(.binary(chunkMessage(5, samples[0..<1600])))
                try await expectError("out of order")
                var broken = Array(samples[0..<1600])
                broken[10] = .nan
                broken[11] = .infinity
                try await outbound.write(.binary(chunkMessage(0, broken[...])))
                try await expectError("non-finite")
                try await outbound.write(.binary(chunkMessage(0, samples[1600..<3200])))
                try await expectError("out of order")
                // The session goes on: the rest of the audio in order, then stop.
                let rest = stride(from: 1600, to: samples.count, by: 1600).enumerated().map { index, start in
                    WebSocketOutboundWriter.OutboundFrame.binary(chunkMessage(UInt32(index + 1), samples[start..<min(samples.count, start + 1600)]))
                }
                for message in try await exchange(&inbox, outbound, rest + [.text(#"{"type": "stop"}"#)]) {
                    XCTAssertNotEqual(message["type"] as? String, "error", "\(message)")
                    if message["type"] as? String == "summary" { box.append(message) }
                }
            }
            return box
        }.messages.first
        let found = try XCTUnwrap(summary)
        XCTAssertEqual((found["summary"] as? [String: Any])?["breaths"] as? Int, 3)
        let id = try XCTUnwrap(found["session_id"] as? Int)
        let exported = try XCTUnwrap(try store.exportAnalysis(Int64(id)))
        XCTAssertEqual(exported.settings.warnings.count, 1, "the non-finite samples are noted once")
    }

    func testADroppedConnectionIsSavedAsInterruptedWithItsBreaths() async throws {
        let store = try HistoryStore()
        let messages = chunks(Self.samples)
        let configuration = client
        let sessionID = try await app(store).test(.live) { client in
            let box = MessageBox()
            try await client.ws("/live", configuration: configuration) { inbound, outbound, _ in
                var inbox = Inbox(inbound)
                try await outbound.write(.text(startMessage))
                box.append(try await inbox.next("started"))
                // Gone without stop.
                _ = try await exchange(&inbox, outbound, messages.map { .binary($0) }, closing: true)
            }
            return box
        }.messages.first?["session_id"] as? Int
        let id = try XCTUnwrap(sessionID)
        let saved = try await waitForSession(store, id: Int64(id))
        XCTAssertEqual(saved.session.status, .interrupted)
        XCTAssertEqual(saved.breaths.count, 3)
        XCTAssertEqual(saved.summary?.breathCount, 3)
        XCTAssertGreaterThan(try XCTUnwrap(try store.frames(Int64(id))).count, 100)
    }

    /// A placement check is analysed and answered like a session (each ended breath with its
    /// signal figures) and never saved.
    func testAPlacementCheckIsAnsweredAndNotSaved() async throws {
        let store = try HistoryStore()
        let messages = chunks(Self.samples)
        let configuration = client
        let collected = try await app(store).test(.live) { client in
            let box = MessageBox()
            try await client.ws("/live", configuration: configuration) { inbound, outbound, _ in
                var inbox = Inbox(inbound)
                try await outbound.write(.text(#"{"type": "start", "sample_rate": 16000, "placement": true, "keep_audio": true}"#))
                let answered = try await exchange(
                    &inbox, outbound, messages.map { .binary($0) } + [.text(#"{"type": "stop"}"#)], until: "summary")
                for message in answered { box.append(message) }
            }
            return box
        }.messages
        XCTAssertFalse(collected.contains { $0["type"] as? String == "error" }, "\(collected.filter { $0["type"] as? String == "error" })")
        let ended = collected.filter { $0["kind"] as? String == "breath_ended" }
        XCTAssertEqual(ended.count, 3)
        XCTAssertTrue(ended.allSatisfy { $0["signal"] is [String: Any] })
        let summary = try XCTUnwrap(collected.last)
        XCTAssertEqual(summary["type"] as? String, "summary")
        XCTAssertNil(summary["session_id"])
        XCTAssertEqual(try store.sessions().count, 0, "nothing saved")
    }

    func testTwoSessionsAtOnceStayIndependent() async throws {
        let store = try HistoryStore()
        let three = chunks(Self.samples)
        let two = chunks(try simulatedSession(breaths: 2, seed: 9))
        let configuration = client
        let results = try await app(store).test(.live) { client in
            try await withThrowingTaskGroup(of: (Int, MessageBox).self) { group in
                for (index, messages) in [three, two].enumerated() {
                    group.addTask {
                        let box = MessageBox()
                        try await client.ws("/live", configuration: configuration) { inbound, outbound, _ in
                            var inbox = Inbox(inbound)
                            try await outbound.write(.text(startMessage))
                            _ = try await inbox.next("started")
                            let read = try await exchange(&inbox, outbound, messages.map { .binary($0) } + [.text(#"{"type": "stop"}"#)], until: "summary")
                            if let summary = read.last { box.append(summary) }
                        }
                        return (index, box)
                    }
                }
                var results: [Int: MessageBox] = [:]
                for try await (index, box) in group { results[index] = box }
                return results
            }
        }
        let first = try XCTUnwrap(results[0]?.messages.first)
        let second = try XCTUnwrap(results[1]?.messages.first)
        XCTAssertEqual((first["breaths"] as? [Any])?.count, 3)
        XCTAssertEqual((second["breaths"] as? [Any])?.count, 2)
        XCTAssertNotEqual(first["session_id"] as? Int, second["session_id"] as? Int)
        XCTAssertEqual(try store.sessions().map(\.breaths).sorted(), [2, 3])
    }

    func testStartsBeyondTheLimitAreRefused() async throws {
        let store = try HistoryStore()
        let configuration = client
        try await app(store, { $0.limits.maxSessions = 1 }).test(.live) { client in
            try await client.ws("/live", configuration: configuration) { inbound, outbound, _ in
                var inbox = Inbox(inbound)
                try await outbound.write(.text(startMessage))
                _ = try await inbox.next("started")
                try await client.ws("/live", configuration: configuration) { inbound2, outbound2, _ in
                    var inbox2 = Inbox(inbound2)
                    try await outbound2.write(.text(startMessage))
                    let refused = try await inbox2.next()
                    XCTAssertEqual(refused?["type"] as? String, "error")
                    XCTAssertTrue((refused?["message"] as? String ?? "").contains("already running 1"))
                    let after = try await inbox2.next()
                    XCTAssertNil(after, "the refused connection is closed")
                }
                try await outbound.write(.text(#"{"type": "stop"}"#))
                _ = try await inbox.next("summary")
            }
            // The place is free again.
            try await client.ws("/live", configuration: configuration) { inbound, outbound, _ in
                var inbox = Inbox(inbound)
                try await outbound.write(.text(startMessage))
                let started = try await inbox.next()
                XCTAssertEqual(started?["type"] as? String, "started")
            }
        }
    }
}

/// Messages gathered inside a WebSocket handler.
final class MessageBox: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [[String: Any]] = []
    func append(_ message: [String: Any]) { lock.withLock { list.append(message) } }
    var messages: [[String: Any]] { lock.withLock { list } }
}
