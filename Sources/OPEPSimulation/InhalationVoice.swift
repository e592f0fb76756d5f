/// Soft breath noise while the patient breathes in: filtered noise (400 Hz-3 kHz, or the varied
/// breath-noise band) swelling and fading, never modulated.
struct InhalationVoice: Sendable {
    private let sampleRate: Double
    private var noise: ShapedNoise

    init(configuration c: SimulationConfiguration) {
        sampleRate = c.sampleRate
        noise = ShapedNoise(band: c.variation?.sound.breathNoiseBand ?? 400...3000, sampleRate: c.sampleRate, generator: SeededGenerator(seed: c.seed, stream: .inhalation))
    }

    /// Adds the inhalation that starts at `start` and lasts `duration` seconds, for `frames`
    /// (session frame numbers), into `output`, whose first element is frame `firstFrame`.
    mutating func render(
        start: Double, duration: Double, level: Double, frames: Range<Int>,
        into output: UnsafeMutableBufferPointer<Double>, firstFrame: Int
    ) {
        for frame in frames {
            let local = Double(frame) / sampleRate - start
            let envelope = smoothstep(local / (0.3 * duration)) * smoothstep((duration - local) / (0.35 * duration))
            output[frame - firstFrame] += level * envelope * noise.next()
        }
    }
}
