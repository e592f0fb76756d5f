/// The patient's breathing off the device: inhalations, and with real breath also exhalations
/// without the device. The steady model is soft filtered noise (400 Hz-3 kHz, or the varied
/// breath-noise band) swelling and fading; real breath is ``BreathFlow``. Never modulated by a
/// rocker.
struct BreathingVoice: Sendable {
    /// Shares of an inhalation spent swelling and fading.
    static let inhalationShape = (attack: 0.3, release: 0.35)
    /// Seconds of a plain exhalation's onset, and the share of it spent fading.
    static let exhalationShape = (attack: 0.15, release: 0.4)

    private let sampleRate: Double
    private var noise: ShapedNoise
    private var flow: BreathFlow

    init(configuration c: SimulationConfiguration) {
        sampleRate = c.sampleRate
        noise = ShapedNoise(band: c.variation?.sound.breathNoiseBand ?? 400...3000, sampleRate: c.sampleRate, generator: SeededGenerator(seed: c.seed, stream: .inhalation))
        var events = SeededGenerator(seed: c.seed, stream: .inhalation)
        flow = BreathFlow(sampleRate: c.sampleRate, generator: SeededGenerator(seed: events.next()), events: events)
    }

    /// Adds the inhalation that starts at `start` and lasts `duration` seconds, for `frames`
    /// (session frame numbers), into `output`, whose first element is frame `firstFrame`; with
    /// `flow`, real breath noise (started afresh when `beginning`).
    mutating func render(
        start: Double, duration: Double, level: Double, flow sound: BreathFlowSound?, beginning: Bool, frames: Range<Int>,
        into output: UnsafeMutableBufferPointer<Double>, firstFrame: Int
    ) {
        render(
            start: start, duration: duration, level: level, flow: sound, beginning: beginning,
            attack: Self.inhalationShape.attack * duration, release: Self.inhalationShape.release * duration,
            frames: frames, into: output, firstFrame: firstFrame)
    }

    /// Adds an exhalation without the device (real breath), like ``render(start:duration:level:flow:beginning:frames:into:firstFrame:)``.
    mutating func render(
        exhalationStart start: Double, duration: Double, level: Double, flow sound: BreathFlowSound, beginning: Bool,
        frames: Range<Int>, into output: UnsafeMutableBufferPointer<Double>, firstFrame: Int
    ) {
        render(
            start: start, duration: duration, level: level, flow: sound, beginning: beginning,
            attack: Self.exhalationShape.attack, release: Self.exhalationShape.release * duration,
            frames: frames, into: output, firstFrame: firstFrame)
    }

    /// A sound swelling over `attack` seconds and fading over the last `release`.
    private mutating func render(
        start: Double, duration: Double, level: Double, flow sound: BreathFlowSound?, beginning: Bool, attack: Double,
        release: Double, frames: Range<Int>, into output: UnsafeMutableBufferPointer<Double>, firstFrame: Int
    ) {
        if let sound, beginning { flow.begin(sound) }
        let real = sound != nil
        for frame in frames {
            let local = Double(frame) / sampleRate - start
            let envelope = smoothstep(local / attack) * smoothstep((duration - local) / release)
            output[frame - firstFrame] += level * envelope * (real ? flow.next() : noise.next())
        }
    }
}
