import OPEPKit

/// One point of a decimated frame trace: the mean of the frames it stands for.
public struct TracePoint: Sendable, Hashable, Codable {
    /// Centre of the frames it covers, in seconds.
    public var time: Double
    /// Mean flutter pitch in Hz; nil when fewer than half of its frames had one (a gap).
    public var pitch: Double?
    /// Mean predicted pressure in cmH2O; nil when fewer than half of its frames had one.
    public var pressure: Double?
    /// Whether most of its frames were within an exhalation.
    public var exhaling: Bool
    /// Mean level in dBFS.
    public var levelDB: Double

    public init(time: Double, pitch: Double?, pressure: Double?, exhaling: Bool, levelDB: Double) {
        self.time = time
        self.pitch = pitch
        self.pressure = pressure
        self.exhaling = exhaling
        self.levelDB = levelDB
    }
}

/// Collects a session's frames as they stream out of the analysis, keeping at most `maxPoints`
/// points whatever the session's length: when the buffer fills, neighbouring points are merged in
/// pairs and later frames go into buckets twice as long. Memory is bounded by `maxPoints`; the
/// result has between `maxPoints / 2` and `maxPoints` points once the session is long enough.
public struct FrameDecimator: Sendable {
    struct Bucket: Sendable {
        var start: Double
        var end: Double
        var count = 0
        var pitchSum = 0.0, pitchCount = 0
        var pressureSum = 0.0, pressureCount = 0
        var exhalingCount = 0
        var levelSum = 0.0

        init(_ frame: SessionFrame) {
            start = frame.time
            end = frame.time
            add(frame)
        }

        mutating func add(_ frame: SessionFrame) {
            end = frame.time
            count += 1
            if let pitch = frame.pitch { pitchSum += pitch; pitchCount += 1 }
            if let pressure = frame.pressure { pressureSum += pressure; pressureCount += 1 }
            if frame.exhaling { exhalingCount += 1 }
            levelSum += frame.levelDB
        }

        mutating func merge(_ other: Bucket) {
            end = other.end
            count += other.count
            pitchSum += other.pitchSum; pitchCount += other.pitchCount
            pressureSum += other.pressureSum; pressureCount += other.pressureCount
            exhalingCount += other.exhalingCount
            levelSum += other.levelSum
        }

        var point: TracePoint {
            TracePoint(
                time: (start + end) / 2,
                pitch: pitchCount * 2 >= count && pitchCount > 0 ? pitchSum / Double(pitchCount) : nil,
                pressure: pressureCount * 2 >= count && pressureCount > 0 ? pressureSum / Double(pressureCount) : nil,
                exhaling: exhalingCount * 2 > count, levelDB: levelSum / Double(count))
        }
    }

    /// Largest number of points kept.
    public let maxPoints: Int
    /// Frames per point at present.
    public private(set) var framesPerPoint = 1
    /// Frames seen.
    public private(set) var frameCount = 0
    private var buckets: [Bucket] = []
    private var current: Bucket?

    public init(maxPoints: Int = 2000) {
        self.maxPoints = max(maxPoints, 4) & ~1
        buckets.reserveCapacity(self.maxPoints)
    }

    public mutating func add(_ frame: SessionFrame) {
        frameCount += 1
        if current == nil {
            current = Bucket(frame)
        } else {
            current!.add(frame)
        }
        guard let full = current, full.count >= framesPerPoint else { return }
        buckets.append(full)
        current = nil
        if buckets.count >= maxPoints {
            var merged: [Bucket] = []
            merged.reserveCapacity(maxPoints)
            var index = 0
            while index + 1 < buckets.count {
                var pair = buckets[index]
                pair.merge(buckets[index + 1])
                merged.append(pair)
                index += 2
            }
            if index < buckets.count { merged.append(buckets[index]) }
            buckets = merged
            framesPerPoint *= 2
        }
    }

    /// The points so far, the last partial bucket included.
    public var points: [TracePoint] {
        var all = buckets.map(\.point)
        if let current { all.append(current.point) }
        return all
    }
}
