import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWSClient
import Logging
import OPEPSimulation

/// One phone's live session over `/live`, as the coach page streams it: `start`, 100 ms chunks
/// of audio paced at real time, `stop`, then the `summary`. Used by `opep serve --benchmark` and
/// `opep load --live`.
enum LiveClient {
    /// Sample rate of the simulated sessions, in Hz (a phone's microphone).
    static let sampleRate = 48000.0
    /// Samples per binary message: 100 ms, as the page sends.
    static let chunkSamples = 4800
    /// Time between chunks.
    static let chunkInterval = Duration.milliseconds(100)

    /// What one session saw.
    struct Outcome: Sendable {
        var sessionID: Int64?
        /// Breaths in the `summary`; nil when none came.
        var breaths: Int?
        var errors: [String] = []
        /// For each `live` message, the time since its chunk (`seq`) was sent, in milliseconds.
        var delays: [Double] = []
        /// Why the connection ended before the summary (refused, reset, closed).
        var failure: String?
    }

    /// A simulated session (one set of `breaths`, 48 kHz) as binary messages: sequence number,
    /// then Float32 samples, little-endian.
    static func simulatedChunks(breaths: Int) throws -> [[UInt8]] {
        var simulator = try SessionSimulator(configuration: SimulationConfiguration(
            sampleRate: sampleRate, sets: 1, breathsPerSet: breaths, huffCoughsPerSet: 1, restBetweenSets: 5, leadInSilence: 2, seed: 3))
        var buffer: [Float] = []
        var chunks: [[UInt8]] = []
        var sequence: UInt32 = 0
        while simulator.render(into: &buffer, maxFrames: chunkSamples) > 0 {
            var bytes = [UInt8]()
            bytes.reserveCapacity(4 + buffer.count * 4)
            withUnsafeBytes(of: sequence.littleEndian) { bytes.append(contentsOf: $0) }
            for sample in buffer { withUnsafeBytes(of: sample.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
            chunks.append(bytes)
            sequence += 1
        }
        return chunks
    }

    /// Streams `chunks` to `url` (`ws://HOST:PORT/live`) in real time and reads the answers until
    /// the `summary`; what was seen also when the connection failed on the way.
    static func stream(_ chunks: [[UInt8]], url: String, token: String? = nil, logger: Logger) async -> Outcome {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        let sent = SentTimes(count: chunks.count)
        let outcome = OutcomeBox()
        do {
            try await connect(chunks, url: url, headers: headers, sent: sent, outcome: outcome, logger: logger)
        } catch {
            outcome.update { $0.failure = "\(error)" }
        }
        if outcome.value.breaths == nil, outcome.value.failure == nil {
            outcome.update { $0.failure = "the connection closed before the summary" }
        }
        return outcome.value
    }

    private static func connect(
        _ chunks: [[UInt8]], url: String, headers: HTTPFields, sent: SentTimes, outcome: OutcomeBox, logger: Logger
    ) async throws {
        try await WebSocketClient.connect(
            url: url, configuration: .init(maxFrameSize: 1 << 20, additionalHeaders: headers), logger: logger
        ) { inbound, outbound, _ in
            try await outbound.write(.text(#"{"type": "start", "sample_rate": \#(Int(sampleRate))}"#))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let clock = ContinuousClock()
                    let start = clock.now
                    for (index, bytes) in chunks.enumerated() {
                        try await clock.sleep(until: start + chunkInterval * index)
                        sent.set(index, clock.now)
                        try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                    }
                    try await outbound.write(.text(#"{"type": "stop"}"#))
                }
                group.addTask {
                    for try await message in inbound.messages(maxSize: 1 << 22) {
                        guard case let .text(text) = message else { continue }
                        let now = ContinuousClock.now
                        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                            let type = object["type"] as? String
                        else { continue }
                        switch type {
                        case "started":
                            outcome.update { $0.sessionID = (object["session_id"] as? NSNumber)?.int64Value }
                        case "live":
                            if let seq = object["seq"] as? Int, let at = sent.get(seq) {
                                outcome.update { $0.delays.append((now - at).seconds * 1000) }
                            }
                        case "error":
                            outcome.update { $0.errors.append(object["message"] as? String ?? text) }
                        case "summary":
                            let breaths = ((object["summary"] as? [String: Any])?["breaths"] as? NSNumber)?.intValue
                            outcome.update { $0.breaths = breaths }
                            return
                        default:
                            break
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}

private final class SentTimes: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [ContinuousClock.Instant?]
    init(count: Int) { times = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ instant: ContinuousClock.Instant) { lock.withLock { times[index] = instant } }
    func get(_ index: Int) -> ContinuousClock.Instant? { lock.withLock { index >= 0 && index < times.count ? times[index] : nil } }
}

private final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var outcome = LiveClient.Outcome()
    func update(_ change: (inout LiveClient.Outcome) -> Void) { lock.withLock { change(&outcome) } }
    var value: LiveClient.Outcome { lock.withLock { outcome } }
}

extension Duration {
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) * 1e-18
    }
}
