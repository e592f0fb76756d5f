/// Running pressure and pitch statistics over frames with a flutter (one per breath, set and session).
struct FlutterStatistics {
    private(set) var frames = 0
    private(set) var pitchedFrames = 0
    private var pressureSum = 0.0
    private var pitchSum = 0.0
    private var minPressure = Double.infinity
    private var maxPressure = -Double.infinity
    private var zoneCounts = (below: 0, within: 0, above: 0)
    /// Frames without a pitch, by the signal check's reason.
    private(set) var unmeasured = ReasonCounts()

    mutating func add(_ frame: SessionFrame) {
        frames += 1
        if frame.pitch == nil { unmeasured.add(frame.signal) }
        guard let pitch = frame.pitch, let pressure = frame.pressure, let zone = frame.zone else { return }
        pitchedFrames += 1
        pitchSum += pitch
        pressureSum += pressure
        minPressure = min(minPressure, pressure)
        maxPressure = max(maxPressure, pressure)
        switch zone {
        case .below: zoneCounts.below += 1
        case .within: zoneCounts.within += 1
        case .above: zoneCounts.above += 1
        }
    }

    mutating func add(_ other: FlutterStatistics) {
        frames += other.frames
        pitchedFrames += other.pitchedFrames
        pressureSum += other.pressureSum
        pitchSum += other.pitchSum
        minPressure = min(minPressure, other.minPressure)
        maxPressure = max(maxPressure, other.maxPressure)
        zoneCounts.below += other.zoneCounts.below
        zoneCounts.within += other.zoneCounts.within
        zoneCounts.above += other.zoneCounts.above
        unmeasured.add(other.unmeasured)
    }

    private var hasFlutter: Bool { pitchedFrames > 0 }
    var meanPressure: Double? { hasFlutter ? pressureSum / Double(pitchedFrames) : nil }
    var meanPitch: Double? { hasFlutter ? pitchSum / Double(pitchedFrames) : nil }
    var lowestPressure: Double? { hasFlutter ? minPressure : nil }
    var highestPressure: Double? { hasFlutter ? maxPressure : nil }
    var flutterShare: Double { frames > 0 ? Double(pitchedFrames) / Double(frames) : 0 }
    var zoneShares: ZoneShares? {
        guard hasFlutter else { return nil }
        let n = Double(pitchedFrames)
        return ZoneShares(below: Double(zoneCounts.below) / n, within: Double(zoneCounts.within) / n, above: Double(zoneCounts.above) / n)
    }
}

/// Frames without a pitch, in all and by the reason the ``SignalCheck`` gave.
struct ReasonCounts {
    private(set) var total = 0
    private var counts = (0, 0, 0, 0, 0, 0)

    mutating func add(_ reason: SignalProblem?) {
        total += 1
        switch reason {
        case .clipped: counts.0 += 1
        case .tooNoisy: counts.1 += 1
        case .tooQuiet: counts.2 += 1
        case .tooFar: counts.3 += 1
        case .bandLimited: counts.4 += 1
        case .noFlutter: counts.5 += 1
        case nil: break
        }
    }

    mutating func add(_ other: ReasonCounts) {
        total += other.total
        counts = (
            counts.0 + other.counts.0, counts.1 + other.counts.1, counts.2 + other.counts.2, counts.3 + other.counts.3,
            counts.4 + other.counts.4, counts.5 + other.counts.5)
    }

    /// The counts as time, for frames `frameInterval` seconds apart.
    func time(frameInterval: Double) -> UnmeasuredTime {
        let t = { (count: Int) in Double(count) * frameInterval }
        return UnmeasuredTime(
            total: t(total), clipped: t(counts.0), tooNoisy: t(counts.1), tooQuiet: t(counts.2), tooFar: t(counts.3),
            bandLimited: t(counts.4), noFlutter: t(counts.5))
    }
}
