import Foundation
import Hummingbird
import HummingbirdWSClient
import Logging
import OPEPHistory
import OPEPServer
import OPEPSimulation

/// `opep serve --benchmark`: the server's time per 100 ms chunk of 48 kHz audio through a
/// ``LiveSession``, and the loopback delay from sending a chunk to receiving the live frame that
/// includes it, on a simulated session (1 set of 5 breaths, 48 kHz), saving to a history file.
enum ServerBenchmark {
    static let sampleRate = 48000.0
    static let chunk = 4800

    static func run() async throws {
        // A history file as `opep serve` uses, in a temporary folder removed afterwards.
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("opep-serve-benchmark-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try HistoryStore(path: (folder as NSString).appendingPathComponent("history.sqlite"))
        let chunks = try simulatedChunks()
        print("Simulated session: \(chunks.count) chunks of \(chunk) samples (\(String(format: "%.1f", Double(chunks.count) * 0.1)) s at 48 kHz)")
        try processingTime(chunks, store: store)
        try await loopbackDelay(chunks, store: store)
    }

    /// The session as binary messages: sequence number, then Float32 samples, little-endian.
    static func simulatedChunks() throws -> [[UInt8]] {
        var simulator = try SessionSimulator(configuration: SimulationConfiguration(
            sampleRate: sampleRate, sets: 1, breathsPerSet: 5, huffCoughsPerSet: 1, restBetweenSets: 5, leadInSilence: 2, seed: 3))
        var buffer: [Float] = []
        var chunks: [[UInt8]] = []
        var sequence: UInt32 = 0
        while simulator.render(into: &buffer, maxFrames: chunk) > 0 {
            var bytes = [UInt8]()
            bytes.reserveCapacity(4 + buffer.count * 4)
            withUnsafeBytes(of: sequence.littleEndian) { bytes.append(contentsOf: $0) }
            for sample in buffer { withUnsafeBytes(of: sample.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
            chunks.append(bytes)
            sequence += 1
        }
        return chunks
    }

    /// Time per chunk through a LiveSession as fast as it goes. The history is written once a
    /// second of wall time, so such a run hardly writes; the second pass writes after every chunk
    /// (the worst case: each 100 ms chunk pays a whole write of its frames and events).
    static func processingTime(_ chunks: [[UInt8]], store: HistoryStore) throws {
        var logger = Logger(label: "opep.benchmark")
        logger.logLevel = .warning
        for (name, flushInterval) in [("saving once a second", Duration.seconds(1)), ("saving after every chunk", Duration.zero)] {
            var configuration = ServerConfiguration()
            configuration.flushInterval = flushInterval
            var times: [Double] = []
            for _ in 0..<3 {
                var session = LiveSession(configuration: configuration, store: store, gate: SessionGate(limit: 8), logger: logger)
                session.receive(text: #"{"type": "start", "sample_rate": 48000}"#)
                guard session.isStarted else { throw failure("the benchmark session did not start: \(session.takeOutbox())") }
                _ = session.takeOutbox()
                let clock = ContinuousClock()
                for bytes in chunks {
                    let start = clock.now
                    bytes.withUnsafeBytes { session.receive(binary: $0) }
                    _ = session.takeOutbox()
                    times.append((clock.now - start).seconds * 1000)
                }
                session.stop()
                let summary = session.takeOutbox().last ?? ""
                if !summary.contains("\"breaths\":5") { throw failure("the benchmark session did not find its 5 breaths: \(summary.prefix(300))") }
            }
            print("Server time per 100 ms chunk (LiveSession in process, \(name), \(times.count) chunks over 3 runs): "
                + "median \(ms(quantile(times, 0.5))), p90 \(ms(quantile(times, 0.9))), p99 \(ms(quantile(times, 0.99))), max \(ms(times.max() ?? 0))")
        }
    }

    static func loopbackDelay(_ chunks: [[UInt8]], store: HistoryStore) async throws {
        var logger = Logger(label: "opep.benchmark")
        // Stopping the server by cancelling it logs the cancellation as an error: not worth showing.
        logger.logLevel = .critical
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.statusInterval = .seconds(1)
        let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = try buildApplication(configuration, store: store, logger: logger) { port in portContinuation.yield(port) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.run() }
            var ports = portStream.makeAsyncIterator()
            guard let port = await ports.next() else { return }
            let delays = try await stream(chunks, port: port, logger: logger)
            print("Loopback delay, chunk sent → live frame with its seq received (paced at real time, \(delays.count) live frames): "
                + "median \(ms(quantile(delays, 0.5))), p90 \(ms(quantile(delays, 0.9))), max \(ms(delays.max() ?? 0))")
            group.cancelAll()
        }
    }

    /// Sends the chunks every 100 ms and measures, for each live message, the time since its chunk was sent.
    static func stream(_ chunks: [[UInt8]], port: Int, logger: Logger) async throws -> [Double] {
        let sent = SentTimes(count: chunks.count)
        let delays = Delays()
        try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)/live", configuration: .init(maxFrameSize: 1 << 20), logger: logger
        ) { inbound, outbound, _ in
            try await outbound.write(.text(#"{"type": "start", "sample_rate": 48000}"#))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let clock = ContinuousClock()
                    let start = clock.now
                    for (index, bytes) in chunks.enumerated() {
                        try await clock.sleep(until: start + .milliseconds(100 * index))
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
                        if type == "live", let seq = object["seq"] as? Int, let at = sent.get(seq) {
                            delays.append((now - at).seconds * 1000)
                        }
                        if type == "summary" { break }
                    }
                }
                try await group.waitForAll()
            }
        }
        return delays.values
    }

    static func quantile(_ values: [Double], _ q: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))]
    }

    static func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }
}

private final class SentTimes: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [ContinuousClock.Instant?]
    init(count: Int) { times = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ instant: ContinuousClock.Instant) { lock.withLock { times[index] = instant } }
    func get(_ index: Int) -> ContinuousClock.Instant? { lock.withLock { index >= 0 && index < times.count ? times[index] : nil } }
}

private final class Delays: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Double] = []
    func append(_ value: Double) { lock.withLock { list.append(value) } }
    var values: [Double] { lock.withLock { list } }
}

extension Duration {
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) * 1e-18
    }
}
