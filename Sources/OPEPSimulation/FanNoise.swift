/// A fan: broadband air noise slightly modulated at the rotation rate (12-25 rev/s, inside the
/// flutter band), blade-pass tones (3-7 blades) and motor hum harmonics of 50 or 60 Hz.
struct FanNoise: InterferenceSource {
    private var air: ShapedNoise
    private var rotation: Phasor
    private var hum: Phasor
    private let blades: Double

    init(sampleRate: Double, generator: SeededGenerator) {
        var g = generator
        rotation = Phasor(frequency: g.uniform(12...25), sampleRate: sampleRate)
        hum = Phasor(frequency: g.nextUnit() < 0.5 ? 50 : 60, sampleRate: sampleRate)
        blades = Double(g.integer(3...7))
        air = ShapedNoise(band: 60...3500, sampleRate: sampleRate, generator: g)
    }

    mutating func next() -> Double {
        _ = rotation.advance()
        _ = hum.advance()
        let sine = WaveTable.sine
        let turn = rotation.phase
        let bladePass = sine.value(wrapping: blades * turn) + 0.4 * sine.value(wrapping: 2 * blades * turn)
        let mains = hum.phase
        let motor = sine.value(at: mains) + 0.6 * sine.value(wrapping: 2 * mains) + 0.35 * sine.value(wrapping: 3 * mains)
        return (1 + 0.12 * sine.value(at: turn)) * air.next() + 0.25 * bladePass + 0.3 * motor
    }
}
