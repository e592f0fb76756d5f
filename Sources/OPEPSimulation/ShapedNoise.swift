/// Band-limited white noise with unit variance: the raw material of flow, breath, huff, cough and
/// fan sounds.
struct ShapedNoise: Sendable {
    private var generator: SeededGenerator
    private var highPass: Biquad
    private var lowPass: Biquad
    private let normalization: Double

    /// Noise band-passed to `band` (the upper edge kept below 0.42 × the sample rate), scaled so
    /// that its long-term RMS is 1.
    init(band: ClosedRange<Double>, sampleRate: Double, generator: SeededGenerator) {
        let upper = min(band.upperBound, 0.42 * sampleRate)
        let lower = min(band.lowerBound, 0.5 * upper)
        self.generator = generator
        highPass = .highPass(cutoff: lower, sampleRate: sampleRate)
        lowPass = .lowPass(cutoff: upper, sampleRate: sampleRate)
        var probeHigh = highPass
        var probeLow = lowPass
        var energy = 0.0
        for n in 0..<Int(sampleRate) {
            let y = probeLow.process(probeHigh.process(n == 0 ? 1 : 0))
            energy += y * y
            if n > 64, abs(y) < 1e-12 { break }
        }
        normalization = 1 / energy.squareRoot()
    }

    @inline(__always)
    mutating func next() -> Double {
        normalization * lowPass.process(highPass.process(generator.noise()))
    }
}
