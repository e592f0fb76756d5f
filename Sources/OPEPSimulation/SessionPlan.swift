/// The timeline of a session, drawn up front from the seed: every inhalation, exhalation and huff
/// with the random details of its sound. A few hundred bytes per breath.
struct SessionPlan: Sendable {
    /// A foreground sound of the patient's.
    struct Event: Sendable {
        enum Sound: Sendable {
            case inhalation
            case exhalation(ExhalationSound)
            case huff
        }

        var sound: Sound
        var start: Double
        var duration: Double
        /// Amplitude relative to a nominal exhalation.
        var level: Double
        /// First frame at or after `start`.
        var firstFrame: Int
        /// First frame at or after the end.
        var endFrame: Int
    }

    /// Seconds of room tone after the last event.
    static let tail = 2.0

    private(set) var events: [Event] = []
    private(set) var breaths: [TrueBreath] = []
    private(set) var huffs: [TrueHuff] = []
    private(set) var duration = 0.0
    private let sampleRate: Double

    init(configuration c: SimulationConfiguration) {
        sampleRate = c.sampleRate
        var g = SeededGenerator(seed: c.seed, stream: .plan)
        var contours = SeededGenerator(seed: c.seed, stream: .contour)
        let threshold = c.flutterThresholdPressure
        let hold = c.variation == nil ? 2.0...3.0 : 0.3...1.2
        var time = c.leadInSilence
        for set in 0..<c.sets {
            if set > 0 {
                time += c.restBetweenSets * g.uniform(0.85...1.15)
            }
            for _ in 0..<c.breathsPerSet {
                let inhalation = g.uniform(0.8...1.5)
                add(.inhalation, at: time, duration: inhalation, level: amplitude(decibels: g.uniform(-22...(-16))))
                time += inhalation + g.uniform(hold)
                let exhalation = c.variation.map { g.uniform($0.sound.exhalationDurations) }
                    ?? min(max(inhalation * g.uniform(3...4), 2.5), 4.5)
                let plateau = g.uniform(c.pressureRange)
                let trajectory = PressureTrajectory(duration: exhalation, plateau: plateau, threshold: threshold, using: &g)
                let contour = c.variation.map { v in
                    PitchContour(
                        onsetSlew: v.sound.onsetSlew, offsetSlew: v.sound.offsetSlew, slewTime: v.sound.slewTime,
                        wanderDepth: v.sound.wanderDepth, wanderFrequency: v.sound.wanderFrequency,
                        wanderPhase: contours.uniform(0...(2 * Double.pi)))
                }
                let breath = TrueBreath(
                    index: breaths.count, set: set, start: time, trajectory: trajectory, device: c.device, contour: contour)
                var sound = ExhalationSound(breath: breath, using: &g)
                if let v = c.variation {
                    sound.pulseExponent = v.sound.pulseExponent
                }
                breaths.append(breath)
                add(.exhalation(sound), at: time, duration: exhalation, level: sound.level)
                time += exhalation + g.uniform(0.5...1.5)
            }
            for _ in 0..<c.huffCoughsPerSet {
                let inhalation = g.uniform(1...1.5)
                add(.inhalation, at: time, duration: inhalation, level: amplitude(decibels: g.uniform(-16...(-12))))
                time += inhalation + g.uniform(0.2...0.5)
                let huff = g.uniform(0.3...0.8)
                huffs.append(TrueHuff(start: time, end: time + huff, set: set))
                add(.huff, at: time, duration: huff, level: amplitude(decibels: g.uniform(3...8)))
                time += huff + g.uniform(0.8...1.5)
            }
        }
        duration = time + Self.tail
    }

    private mutating func add(_ sound: Event.Sound, at start: Double, duration: Double, level: Double) {
        events.append(Event(
            sound: sound, start: start, duration: duration, level: level,
            firstFrame: frame(at: start), endFrame: frame(at: start + duration)))
    }

    private func frame(at time: Double) -> Int {
        Int((time * sampleRate).rounded(.up))
    }
}
