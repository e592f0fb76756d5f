/// The rocker's cycles: its phase integrated from the pitch sample by sample, each new cycle's
/// period jittered by ``SoundVariation/periodJitter``. The renderer and ``RealisedPitch`` run the
/// same clock from the same seed, so the ground truth knows every cycle the sound holds.
struct RockerClock: Sendable {
    private let sampleRate: Double
    private let periodJitter: Double
    private var periodNoise: SeededGenerator
    /// Position in the current cycle, 0..<1.
    private(set) var phase = 0.0
    private var cycleRate = 1.0

    init(configuration c: SimulationConfiguration) {
        sampleRate = c.sampleRate
        periodJitter = c.variation?.sound.periodJitter ?? 0
        periodNoise = SeededGenerator(seed: c.seed, stream: .periodJitter)
    }

    /// A closed valve at the start of an exhalation.
    mutating func begin() {
        phase = 0
        cycleRate = 1
    }

    /// Advances one sample at `pitch` Hz; true when a cycle ended on this sample.
    @inline(__always)
    mutating func advance(pitch: Double) -> Bool {
        phase += pitch / sampleRate * cycleRate
        guard phase >= 1 else { return false }
        phase -= 1
        if periodJitter > 0 {
            cycleRate = 1 / (1 + periodJitter * periodNoise.noise())
        }
        return true
    }
}

/// The flutter rate the rocker really ran at: over any stretch of time, the cycles it completed
/// (counted, with the fractions at either end) divided by the time. With period jitter this is
/// what the pressure under the rocker follows, while ``GroundTruth/pitch(at:)`` is the smooth
/// nominal contour the jitter scatters around.
public struct RealisedPitch: Sendable {
    /// Per breath, the times at which its cycles ended (seconds from the session's start), after
    /// the flutter's start (phase 0) and before its end (with the phase reached there).
    private let cycles: [(start: Double, ends: [Double], end: Double, finalPhase: Double)]
    private let truth: GroundTruth

    /// Runs the rocker's clock over every breath of `truth`, as the renderer did.
    public init(truth: GroundTruth) {
        self.truth = truth
        let configuration = truth.configuration
        let rate = configuration.sampleRate
        var clock = RockerClock(configuration: configuration)
        cycles = truth.breaths.map { breath in
            clock.begin()
            var ends: [Double] = []
            var first: Double?
            var last = breath.flutterStart
            for frame in Int((breath.start * rate).rounded(.up))..<Int((breath.end * rate).rounded(.up)) {
                let time = Double(frame) / rate
                guard let pitch = breath.pitch(at: time, device: configuration.device) else { continue }
                if first == nil { first = time }
                last = time
                if clock.advance(pitch: pitch) { ends.append(time) }
            }
            return (first ?? breath.flutterStart, ends, last, clock.phase)
        }
    }

    /// Cycles completed since the breath's flutter began, at `time` (linear within a cycle).
    private func cycleCount(_ breath: Int, at time: Double) -> Double {
        let (start, ends, end, finalPhase) = cycles[breath]
        if time <= start { return 0 }
        var low = 0
        var high = ends.count
        while low < high {
            let middle = (low + high) / 2
            if ends[middle] <= time { low = middle + 1 } else { high = middle }
        }
        let previous = low == 0 ? start : ends[low - 1]
        if low < ends.count {
            return Double(low) + (time - previous) / (ends[low] - previous)
        }
        return Double(low) + finalPhase * min(1, (time - previous) / max(end - previous, .ulpOfOne))
    }

    /// The realised rate in Hz over `window` seconds centred on `time` (cut to the flutter), or nil
    /// when the rocker is not fluttering at `time`.
    public func pitch(at time: Double, window: Double) -> Double? {
        guard let breath = truth.breath(at: time), let nominal = breath.pitch(at: time, device: truth.configuration.device)
        else { return nil }
        let (start, _, end, _) = cycles[breath.index]
        let a = max(start, time - window / 2)
        let b = min(end, time + window / 2)
        guard b - a > 0.5 / truth.configuration.device.upperFrequency else { return nominal }
        return (cycleCount(breath.index, at: b) - cycleCount(breath.index, at: a)) / (b - a)
    }
}
