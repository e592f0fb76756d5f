import Foundation

/// Someone else coughing: bursts of 1-3 coughs at random times (on average every 8 s), so they
/// fall in rests and over exhalations alike. Each cough is a sharp-onset broadband burst decaying
/// over 0.15-0.35 s, scaled so that its RMS is about 1.
struct CoughBursts: InterferenceSource {
    /// √5: the inverse RMS of the (1 − u)² decay.
    private static let normalization = 2.23606797749979

    private let sampleRate: Double
    private var generator: SeededGenerator
    private var noise: ShapedNoise
    private var coughing = false
    private var coughsLeft = 0
    private var remaining: Int
    private var length = 1

    init(sampleRate: Double, generator: SeededGenerator) {
        self.sampleRate = sampleRate
        var g = generator
        noise = ShapedNoise(band: 200...5000, sampleRate: sampleRate, generator: SeededGenerator(seed: g.next()))
        remaining = Int(g.uniform(0.5...8) * sampleRate)
        self.generator = g
    }

    mutating func next() -> Double {
        if remaining == 0 {
            advance()
        }
        remaining -= 1
        guard coughing else { return 0 }
        let elapsed = Double(length - remaining)
        let decay = Double(remaining) / Double(length)
        return Self.normalization * smoothstep(elapsed / (0.008 * sampleRate)) * decay * decay * noise.next()
    }

    private mutating func advance() {
        if coughing {
            coughing = false
            let pause = coughsLeft > 0 ? generator.uniform(0.1...0.3) : 1.5 - 6.5 * log(1 - generator.nextUnit())
            remaining = max(1, Int(pause * sampleRate))
        } else {
            if coughsLeft == 0 {
                coughsLeft = generator.integer(1...3)
            }
            coughsLeft -= 1
            coughing = true
            length = max(1, Int(generator.uniform(0.15...0.35) * sampleRate))
            remaining = length
        }
    }
}
