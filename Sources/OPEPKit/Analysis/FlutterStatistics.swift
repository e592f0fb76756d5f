/// Running pressure and pitch statistics over frames with a flutter (one per breath, set and session).
struct FlutterStatistics {
    private(set) var frames = 0
    private(set) var pitchedFrames = 0
    private var pressureSum = 0.0
    private var pitchSum = 0.0
    private var minPressure = Double.infinity
    private var maxPressure = -Double.infinity
    private var zoneCounts = (below: 0, within: 0, above: 0)
    /// Frames without a pitch, by the signal check's reason, each counted as 1 (see
    /// ``UnmeasuredTime/scaled(by:)``).
    private(set) var unmeasuredFrames = UnmeasuredTime()
    private var levelPower = 0.0
    private var modulationSum = 0.0
    private var clippedSum = 0.0
    private var bandSum = 0.0
    private var bandFrames = 0

    mutating func add(_ frame: SessionFrame) {
        frames += 1
        levelPower += power(10, frame.levelDB / 10)
        modulationSum += frame.modulation
        clippedSum += frame.clippedShare
        if let band = frame.upperFrequencyHz {
            bandSum += band
            bandFrames += 1
        }
        if frame.pitch == nil { unmeasuredFrames.add(1, reason: frame.signal) }
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
        unmeasuredFrames.add(other.unmeasuredFrames)
        levelPower += other.levelPower
        modulationSum += other.modulationSum
        clippedSum += other.clippedSum
        bandSum += other.bandSum
        bandFrames += other.bandFrames
    }

    /// The frames' mean level (power) over the room's and the rounding's noise, modulation depth,
    /// clipped share and upper frequency, with the check's verdict; nil without frames.
    func signal(roomDB: Double?, roundingDB: Double?, check: SignalCheck.Configuration) -> SignalFigures? {
        guard frames > 0 else { return nil }
        let n = Double(frames)
        let levelDB = 10 * logarithm10(max(levelPower / n, 1e-14))
        let floorDB = roomDB.map { SignalCheck.noiseFloor(roomDB: $0, roundingDB: roundingDB) }
        var figures = SignalFigures(
            snrDB: floorDB.map { (SignalCheck.signalToNoise(levelDB: levelDB, roomDB: $0) * 10).rounded() / 10 },
            modulation: modulationSum / n,
            clippedShare: clippedSum / n, upperFrequencyHz: bandFrames > 0 ? (bandSum / Double(bandFrames)).rounded() : nil,
            problem: nil)
        figures.problem = SignalCheck.verdict(
            on: figures, roomDB: roomDB, roundingDB: roundingDB, flutterShare: flutterShare, unmeasured: unmeasuredFrames, configuration: check)
        return figures
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
