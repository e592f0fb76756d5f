/// Pink-ish room noise: white noise through three one-pole low-passes (Kellet's pinking filter with
/// its corners kept in Hz at any sample rate), darkened above 6 kHz.
struct RoomNoise: InterferenceSource {
    private var generator: SeededGenerator
    private var low: OnePole
    private var middle: OnePole
    private var high: OnePole
    private var darkening: Biquad

    init(sampleRate: Double, generator: SeededGenerator) {
        self.generator = generator
        low = OnePole(cutoff: 16.5, sampleRate: sampleRate)
        middle = OnePole(cutoff: 265, sampleRate: sampleRate)
        high = OnePole(cutoff: 3945, sampleRate: sampleRate)
        darkening = .lowPass(cutoff: min(6000, 0.42 * sampleRate), sampleRate: sampleRate)
    }

    mutating func next() -> Double {
        let white = generator.noise()
        let pink = 42.1 * low.process(white) + 8.01 * middle.process(white) + 2.45 * high.process(white) + 0.185 * white
        return darkening.process(pink)
    }
}
