import Foundation

/// The random details of one breath's own noise, drawn per breath (``random(depth:using:)``).
///
/// Real breath near a microphone is narrow, low-frequency noise whose loudness fluctuates by
/// itself (`shared/real-breath-stats.md`, 257 real exhalations: half its energy below 150 Hz,
/// 90 % below 260 Hz; an energy envelope modulated about 35 % in each of 2-10, 10-20 and
/// 20-40 Hz; a third of its 0.25 s windows correlate above 0.4 at some 10-40 Hz lag).
struct BreathFlowSound: Sendable {
    /// Corner of the noise's steep (4th-order) roll-off at the breath's start, in Hz.
    var corner: Double
    /// Centre frequency of the airway's resonance at the breath's start, and its -3 dB bandwidth, in Hz.
    var resonance: Double
    var bandwidth: Double
    /// Amplitude of the resonance against the rest of the noise.
    var resonanceLevel: Double
    /// Largest relative drift of the corner and the resonance during the breath, and its two rates in Hz.
    var drift: Double
    var driftRates: (Double, Double)
    var driftPhases: (Double, Double)
    /// RMS of the breath's own loudness fluctuation (1/f-like, 2-40 Hz), relative to its mean.
    var fluctuationDepth: Double
    /// Amplitude of broadband hiss (300 Hz-6 kHz) against the resonant noise.
    var hissLevel: Double
    /// Lip and mouth clicks per second.
    var mouthNoiseRate: Double

    /// Range of the roll-off's corner for breath at the mouth, in Hz (real breath's figures).
    static let mouthCorners = 120.0...300
    /// Range of the corner for the air rushing through the device's valve, in Hz: a jet brighter
    /// than the breath at the mouth (the semi-real set through a device: half the energy
    /// below 269 Hz, 81 % below 500 Hz).
    static let jetCorners = 300.0...900
    /// The jet's own loudness fluctuation against the breath's at the mouth. With the lips sealed
    /// on the mouthpiece the lips' turbulence no longer reaches the microphone, and the jet's
    /// loudness follows the airway's flow: the set through a device has an envelope
    /// modulation of 0.31 (0.25-0.48) in 2-10 Hz, below the flutter, against 0.42 for breath at
    /// the mouth; with the whole fluctuation the simulated jet gave 0.44-0.46, with half of it 0.33
    /// (`RealBreathTests`).
    static let jetFluctuationShare = 0.5

    /// A breath drawn around a session's fluctuation `depth`, its corner within `corners`.
    static func random(
        depth: Double, mouthNoiseRate: Double, corners: ClosedRange<Double> = mouthCorners, using g: inout SeededGenerator
    ) -> BreathFlowSound {
        BreathFlowSound(
            corner: g.logUniform(corners),
            resonance: g.logUniform(80...200),
            bandwidth: g.uniform(40...120),
            resonanceLevel: g.uniform(0.3...1),
            drift: g.uniform(0.05...0.25),
            driftRates: (g.logUniform(0.2...1.5), g.logUniform(0.2...1.5)),
            driftPhases: (g.uniform(0...(2 * Double.pi)), g.uniform(0...(2 * Double.pi))),
            fluctuationDepth: min(0.6, max(0.05, depth * g.uniform(0.75...1.25))),
            hissLevel: g.uniform(0.02...0.12),
            mouthNoiseRate: mouthNoiseRate * g.uniform(0.5...1.5))
    }
}

/// Real breath noise, unit RMS on average: white noise and a drifting airway resonance under a
/// steep roll-off (4th-order Butterworth low-pass), plus a little hiss, its loudness fluctuating by itself (equal energy per octave over 2-40 Hz),
/// and occasional lip and mouth clicks. The resonances and the fluctuation are updated at a
/// control rate of 1 kHz and interpolated; nothing allocates per sample.
struct BreathFlow: Sendable {
    /// Rate of the resonances' and the fluctuation's updates, in Hz.
    static let controlRate = 1000.0
    /// Centres of the fluctuation's octave bands, in Hz (2.8-45 Hz between their edges).
    static let fluctuationBands = [2.8, 5.6, 11.2, 22.4, 40.0]
    /// Amplitude of each octave against the 11.2 Hz one is (centre / 11.2 Hz)^tilt: 0 is 1/f, 0.5 white.
    static let fluctuationTilt = 0.25
    /// Q of an octave-wide band-pass.
    static let octaveQ = 1.41
    /// Qs of the two sections of a 4th-order Butterworth filter.
    static let butterworthQs = (0.5411961001461970, 1.3065629648763766)
    /// Two-sided noise bandwidth of that low-pass over its corner (white noise of unit variance
    /// leaves a variance of this times corner / sample rate).
    static let butterworthBandwidth = 2.05
    /// Lowest loudness factor the fluctuation may reach.
    static let floor = 0.05

    private let sampleRate: Double
    private let controlStep: Int
    private var noise: SeededGenerator
    private var events: SeededGenerator
    private var hiss: ShapedNoise
    private var resonator: Biquad
    private var lowPass: (Biquad, Biquad)
    private var octaves: [Biquad]
    private let octaveWeights: [Double]
    private var click: Resonator
    private var clickInput = 0.0
    private var sound: BreathFlowSound?
    private var counter = 0
    private var elapsed = 0.0
    private var gain = 1.0
    private var gainStep = 0.0
    private var normalization = (1.0, 1.0)

    init(sampleRate: Double, generator: SeededGenerator, events: SeededGenerator) {
        self.sampleRate = sampleRate
        controlStep = max(1, Int((sampleRate / Self.controlRate).rounded()))
        noise = generator
        var events = events
        hiss = ShapedNoise(band: 300...6000, sampleRate: sampleRate, generator: SeededGenerator(seed: events.next()))
        self.events = events
        resonator = .bandPass(center: 100, q: 1, sampleRate: sampleRate)
        lowPass = (.lowPass(cutoff: 200, sampleRate: sampleRate), .lowPass(cutoff: 200, sampleRate: sampleRate))
        let control = sampleRate / Double(controlStep)
        let centres = Self.fluctuationBands.map { min($0, 0.4 * control) }
        octaves = centres.map { .bandPass(center: $0, q: Self.octaveQ, sampleRate: control) }
        let tilts = centres.map { pow($0 / Self.fluctuationBands[2], Self.fluctuationTilt) }
        let total = tilts.reduce(0) { $0 + $1 * $1 }
        octaveWeights = zip(centres, tilts).map { centre, tilt in tilt * (control / (Double.pi * centre / Self.octaveQ) / total).squareRoot() }
        click = Resonator(frequency: 2000, decayTime: 0.002, sampleRate: sampleRate)
    }

    /// Starts a new breath's noise.
    mutating func begin(_ sound: BreathFlowSound) {
        self.sound = sound
        counter = 0
        elapsed = 0
        gain = 1
        gainStep = 0
        normalization = (
            (sampleRate / (Self.butterworthBandwidth * sound.corner)).squareRoot(),
            sound.resonanceLevel * (sampleRate / (Double.pi * sound.bandwidth)).squareRoot()
        )
        for _ in 0..<Int(Self.controlRate / 2) { _ = nextFluctuation(sound) }
    }

    /// The next sample.
    @inline(__always)
    mutating func next() -> Double {
        guard let sound else { return 0 }
        if counter == 0 { control(sound) }
        counter = counter + 1 == controlStep ? 0 : counter + 1
        gain += gainStep
        let white = noise.noise()
        let source = normalization.0 * white + normalization.1 * resonator.process(white)
        let rolled = lowPass.1.process(lowPass.0.process(source))
        let voiced = (rolled + sound.hissLevel * hiss.next())
            / (1 + sound.resonanceLevel * sound.resonanceLevel + sound.hissLevel * sound.hissLevel).squareRoot()
        let mouth = click.process(clickInput)
        clickInput = 0
        return gain * voiced + mouth
    }

    /// Once per control step: the resonances moved, the loudness ramp to the next fluctuation
    /// value, maybe a mouth click.
    private mutating func control(_ sound: BreathFlowSound) {
        let seconds = Double(controlStep) / sampleRate
        elapsed += seconds
        let move = sound.drift * 0.5 * (sin(2 * Double.pi * sound.driftRates.0 * elapsed + sound.driftPhases.0)
            + sin(2 * Double.pi * sound.driftRates.1 * elapsed + sound.driftPhases.1))
        let nyquistGuard = 0.4 * sampleRate
        let centre = min(sound.resonance * exp(move), nyquistGuard)
        let corner = min(sound.corner * exp(move), nyquistGuard)
        resonator.retune(like: .bandPass(center: centre, q: centre / sound.bandwidth, sampleRate: sampleRate))
        lowPass.0.retune(like: .lowPass(cutoff: corner, q: Self.butterworthQs.0, sampleRate: sampleRate))
        lowPass.1.retune(like: .lowPass(cutoff: corner, q: Self.butterworthQs.1, sampleRate: sampleRate))
        let target = max(Self.floor, 1 + sound.fluctuationDepth * nextFluctuation(sound))
        gainStep = (target - gain) / Double(controlStep)
        if events.chance(sound.mouthNoiseRate * seconds) {
            click.retune(like: Resonator(
                frequency: min(events.logUniform(800...4000), nyquistGuard), decayTime: events.uniform(0.001...0.004),
                sampleRate: sampleRate))
            clickInput = events.uniform(1...4) * (events.chance(0.5) ? 1 : -1)
        }
    }

    /// The next control-rate value of the 1/f-like fluctuation, unit RMS.
    private mutating func nextFluctuation(_ sound: BreathFlowSound) -> Double {
        let white = noise.noise()
        var sum = 0.0
        for k in octaves.indices { sum += octaveWeights[k] * octaves[k].process(white) }
        return sum
    }
}
