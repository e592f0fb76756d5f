/// A huff cough: a forceful open-glottis exhalation off the device, a loud broadband burst with a
/// sharp onset that holds briefly and dies away. No flutter.
struct HuffVoice: Sendable {
    private let sampleRate: Double
    private var noise: ShapedNoise

    init(configuration c: SimulationConfiguration) {
        sampleRate = c.sampleRate
        noise = ShapedNoise(band: 300...6500, sampleRate: c.sampleRate, generator: SeededGenerator(seed: c.seed, stream: .huff))
    }

    /// Adds the huff that starts at `start` and lasts `duration` seconds, for `frames` (session
    /// frame numbers), into `output`, whose first element is frame `firstFrame`.
    mutating func render(
        start: Double, duration: Double, level: Double, frames: Range<Int>,
        into output: UnsafeMutableBufferPointer<Double>, firstFrame: Int
    ) {
        let hold = 0.3 * duration
        for frame in frames {
            let local = Double(frame) / sampleRate - start
            let envelope = smoothstep(local / 0.015) * (1 - smoothstep((local - hold) / (duration - hold)))
            output[frame - firstFrame] += level * envelope * noise.next()
        }
    }
}
