/// The timeline of a session, drawn up front from the seed: every inhalation, exhalation and huff
/// with the random details of its sound. A few hundred bytes per breath.
struct SessionPlan: Sendable {
    /// A foreground sound of the patient's.
    struct Event: Sendable {
        enum Sound: Sendable {
            /// Breathing in; with real breath, its noise.
            case inhalation(BreathFlowSound?)
            case exhalation(ExhalationSound)
            /// Breathing out without the device (real breath only).
            case plainExhalation(BreathFlowSound)
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
    private(set) var plainExhalations: [TrueSound] = []
    private(set) var duration = 0.0
    private let sampleRate: Double

    init(configuration c: SimulationConfiguration) {
        sampleRate = c.sampleRate
        var g = SeededGenerator(seed: c.seed, stream: .plan)
        var contours = SeededGenerator(seed: c.seed, stream: .contour)
        let threshold = c.flutterThresholdPressure
        let hold = c.variation == nil ? 2.0...3.0 : 0.3...1.2
        let real = c.variation?.breath
        var breathing = SeededGenerator(seed: c.seed, stream: .breathPlan)
        let setEnds = (0..<c.sets).map { ($0 + 1) * c.breathsPerSet - 1 }
        let plainAfter = Set((0..<(real?.plainExhalations ?? 0)).map { _ in
            ([-1] + setEnds)[breathing.integer(0...c.sets)]
        })
        var time = c.leadInSilence
        func breathingLevel(_ nominal: ClosedRange<Double>) -> Double {
            // Drawn even when real breath replaces it, so the plan's other draws stay where they were.
            let drawn = g.uniform(nominal)
            guard let real else { return amplitude(decibels: drawn) }
            return amplitude(decibels: real.breathingDB + breathing.uniform(-3...3))
        }
        func flow(corners: ClosedRange<Double> = BreathFlowSound.mouthCorners, fluctuationShare: Double = 1) -> BreathFlowSound? {
            real.map {
                BreathFlowSound.random(
                    depth: $0.fluctuationDepth * fluctuationShare, mouthNoiseRate: $0.mouthNoiseRate, corners: corners,
                    using: &breathing)
            }
        }
        func plainExhalation() {
            guard let sound = flow() else { return }
            let inhalation = breathing.uniform(0.8...1.5)
            add(.inhalation(flow()), at: time, duration: inhalation, level: breathingLevel(-22...(-16)))
            time += inhalation + breathing.uniform(0.3...1)
            let exhalation = breathing.uniform(1.5...4)
            plainExhalations.append(TrueSound(start: time, end: time + exhalation))
            add(.plainExhalation(sound), at: time, duration: exhalation, level: amplitude(decibels: breathing.uniform(-6...3)))
            time += exhalation + breathing.uniform(0.5...1.5)
        }
        if plainAfter.contains(-1) { plainExhalation() }
        for set in 0..<c.sets {
            if set > 0 {
                time += c.restBetweenSets * g.uniform(0.85...1.15)
            }
            if c.withoutDevice {
                for _ in 0..<c.breathsPerSet { plainExhalation() }
                continue
            }
            for _ in 0..<c.breathsPerSet {
                let inhalation = g.uniform(0.8...1.5)
                add(.inhalation(flow()), at: time, duration: inhalation, level: breathingLevel(-22...(-16)))
                time += inhalation + g.uniform(hold)
                let exhalation = c.variation.map { g.uniform($0.sound.exhalationDurations) }
                    ?? min(max(inhalation * g.uniform(3...4), 2.5), 4.5)
                let plateau = g.uniform(c.pressureRange)
                let trajectory = PressureTrajectory(
                    duration: exhalation, plateau: plateau, threshold: threshold,
                    attacks: real.map { 0.1...$0.longestRamp } ?? 0.05...0.1,
                    falls: real.map { 0.15...max(0.2, $0.longestRamp) } ?? 0.1...0.2, using: &g)
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
                if let real {
                    sound.flow = flow(corners: BreathFlowSound.jetCorners, fluctuationShare: BreathFlowSound.jetFluctuationShare)
                    sound.leak = amplitude(decibels: real.leakDB)
                    sound.valveDuty = breathing.uniform(ValveGate.duties)
                    sound.release = trajectory.fall
                }
                breaths.append(breath)
                add(.exhalation(sound), at: time, duration: exhalation, level: sound.level)
                time += exhalation + g.uniform(0.5...1.5)
                if plainAfter.contains(breaths.count - 1) { plainExhalation() }
            }
            for _ in 0..<c.huffCoughsPerSet {
                let inhalation = g.uniform(1...1.5)
                add(.inhalation(flow()), at: time, duration: inhalation, level: breathingLevel(-16...(-12)))
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
