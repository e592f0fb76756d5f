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
    static func run() async throws {
        // A history file as `opep serve` uses, in a temporary folder removed afterwards.
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("opep-serve-benchmark-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try HistoryStore(path: (folder as NSString).appendingPathComponent("history.sqlite"))
        let chunks = try LiveClient.simulatedChunks(breaths: 5)
        print("Simulated session: \(chunks.count) chunks of \(LiveClient.chunkSamples) samples (\(String(format: "%.1f", Double(chunks.count) * 0.1)) s at 48 kHz)")
        try processingTime(chunks, store: store)
        try await loopbackDelay(chunks, store: store)
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
            let outcome = await LiveClient.stream(chunks, url: "ws://127.0.0.1:\(port)/live", logger: logger)
            if let reason = outcome.failure { throw failure("the benchmark's live session failed: \(reason)") }
            let delays = outcome.delays
            print("Loopback delay, chunk sent → live frame with its seq received (paced at real time, \(delays.count) live frames): "
                + "median \(ms(quantile(delays, 0.5))), p90 \(ms(quantile(delays, 0.9))), max \(ms(delays.max() ?? 0))")
            group.cancelAll()
        }
    }

    static func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }
}
