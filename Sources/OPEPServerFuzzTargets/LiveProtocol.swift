import Foundation
import Logging
import OPEPHistory
import OPEPServer

/// The `live` target: one `/live` connection's messages, as ``LiveSession`` takes them from the
/// WebSocket, into a history in memory.
///
/// The bytes are a sequence of messages, each a header byte, then for text and binary messages a
/// little-endian 16-bit length and that many bytes (fewer at the end of the input). The header's
/// low two bits pick the message (0 text, 1 binary, 2 the server stopping the session, 3 the socket
/// closing); its upper six bits advance the clock by that many 10 ms before it, so status and live
/// frames are paced as on a real connection. The input ends with the socket closing.
///
/// Besides never crashing, a connection must end with its session ended, its place among the
/// running sessions given back, its session (if saved) no longer recording, and every message it
/// sent a JSON object with a `type`.
enum LiveProtocol {
    nonisolated(unsafe) private static var store: HistoryStore? = try? HistoryStore()
    private static let gate = SessionGate(limit: 1)
    private static let audioFolder = (NSTemporaryDirectory() as NSString).appendingPathComponent("opep-fuzz-audio-\(getpid())")
    private static let configuration: ServerConfiguration = {
        var configuration = ServerConfiguration()
        configuration.audioFolder = audioFolder
        return configuration
    }()
    private static let logger = Logger(label: "opep-fuzz") { _ in SwiftLogNoOpLogHandler() }
    private static let clockStep = Duration.milliseconds(10)

    /// Whether the bytes started a session and stopped it with its summary.
    static func run(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let store else { return false }
        var session = LiveSession(configuration: configuration, store: store, gate: gate, logger: logger)
        var now = ContinuousClock.now
        var summarised = false
        var offset = 0
        func deliver(_ session: inout LiveSession) {
            for message in session.takeOutbox() {
                let type = checkedType(message)
                if type == "summary" { summarised = true }
            }
        }
        while offset < bytes.count, !session.shouldClose {
            let header = bytes[offset]
            offset += 1
            now += clockStep * Int(header >> 2)
            switch header & 3 {
            case 0, 1:
                var length = 0
                if offset + 2 <= bytes.count {
                    length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
                    offset += 2
                }
                let payload = UnsafeRawBufferPointer(rebasing: bytes[offset..<min(bytes.count, offset + length)])
                offset += payload.count
                if header & 3 == 0 {
                    session.receive(text: String(decoding: payload, as: UTF8.self), now: now)
                } else {
                    session.receive(binary: payload, now: now)
                }
            case 2:
                session.stop()
            default:
                session.disconnect()
            }
            deliver(&session)
        }
        session.disconnect()
        deliver(&session)
        precondition(session.isEnded, "the connection closed and its session goes on")
        precondition(gate.count == 0, "a closed connection still holds a place among the running sessions")
        if let id = session.sessionID {
            guard let stored = try? store.session(id) else { preconditionFailure("session \(id) was started and is not in the history") }
            precondition(stored.session.status != .recording, "session \(id) is still recording after its connection closed")
            try? FileManager.default.removeItem(atPath: (audioFolder as NSString).appendingPathComponent("session-\(id).wav"))
            _ = try? store.deleteSession(id)
        }
        return summarised
    }

    /// The `type` of a message sent to the page, which must be a JSON object with one.
    private static func checkedType(_ message: String) -> String {
        let object = try? JSONSerialization.jsonObject(with: Data(message.utf8)) as? [String: Any]
        guard let type = object?["type"] as? String else { preconditionFailure("the session sent a message that is not a JSON object with a type: \(message)") }
        return type
    }
}
