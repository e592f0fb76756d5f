import Foundation

/// The server's time over each live audio chunk (decoding, the engine, the messages, and the
/// history's flush when one is due), kept as a histogram of fixed buckets allocated once, so
/// recording a chunk neither allocates nor grows; `GET /api/health` reports its quantiles.
public final class ChunkTimes: @unchecked Sendable {
    /// Width of one bucket, in milliseconds.
    public static let resolutionMilliseconds = 0.01
    /// Times above this, in milliseconds, share the last bucket (their maximum is still exact).
    public static let rangeMilliseconds = 1000.0

    private let lock = NSLock()
    /// Guarded by `lock`; `buckets` is its length, for reading without the lock.
    private var counts: [Int]
    private let buckets: Int
    private var total = 0
    private var longest = 0.0

    public init() {
        buckets = Int(Self.rangeMilliseconds / Self.resolutionMilliseconds) + 1
        counts = Array(repeating: 0, count: buckets)
    }

    /// Counts one chunk that took `duration`.
    public func record(_ duration: Duration) {
        let milliseconds = max(0, duration.milliseconds)
        let bucket = min(buckets - 1, Int(milliseconds / Self.resolutionMilliseconds))
        lock.withLock {
            counts[bucket] += 1
            total += 1
            longest = max(longest, milliseconds)
        }
    }

    /// Quantiles of the times recorded so far.
    public struct Summary: Sendable, Equatable, Encodable {
        public var chunks: Int
        /// Upper edges of the buckets holding the quantile, in milliseconds; nil before any chunk.
        public var p50Milliseconds: Double?
        public var p90Milliseconds: Double?
        public var p99Milliseconds: Double?
        public var maxMilliseconds: Double?

        enum CodingKeys: String, CodingKey {
            case chunks, p50Milliseconds = "p50_ms", p90Milliseconds = "p90_ms", p99Milliseconds = "p99_ms", maxMilliseconds = "max_ms"
        }
    }

    public var summary: Summary {
        lock.withLock {
            guard total > 0 else { return Summary(chunks: 0) }
            func quantile(_ q: Double) -> Double {
                let rank = max(1, Int((Double(total) * q).rounded(.up)))
                var seen = 0
                for (bucket, count) in counts.enumerated() {
                    seen += count
                    if seen >= rank { return min(longest, Double(bucket + 1) * Self.resolutionMilliseconds) }
                }
                return longest
            }
            return Summary(chunks: total, p50Milliseconds: quantile(0.5), p90Milliseconds: quantile(0.9), p99Milliseconds: quantile(0.99), maxMilliseconds: longest)
        }
    }
}

extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) * 1e-15
    }
}

/// The live sessions running now and the server's time over their chunks, shared by the `/live`
/// route that counts them and `GET /api/health` that reports them.
public final class LiveActivity: Sendable {
    public let gate: SessionGate
    public let chunkTimes = ChunkTimes()

    public init(maxSessions: Int) { gate = SessionGate(limit: maxSessions) }

    /// `GET /api/health`: the live sessions running and the chunk times since the server started.
    struct Health: Encodable {
        var liveSessions: Int
        var maxLiveSessions: Int
        var chunkTimes: ChunkTimes.Summary

        enum CodingKeys: String, CodingKey {
            case liveSessions = "live_sessions", maxLiveSessions = "max_live_sessions", chunkTimes = "chunk_times"
        }
    }

    var health: Health { Health(liveSessions: gate.count, maxLiveSessions: gate.limit, chunkTimes: chunkTimes.summary) }
}
