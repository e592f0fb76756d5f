/// Speech-like babble without a speech synthesizer: phrases of 3-10 syllables at about 4.5 per
/// second separated by pauses. A syllable is an optional fricative burst and a vowel: a glottal
/// pulse train (F0 100-220 Hz with jitter, declination and accents) shaped by glottal and lip
/// filters and three formant resonators.
struct SyntheticSpeech: InterferenceSource {
    private enum Segment { case pause, consonant, vowel }

    /// Glottal pulses to sound: glottal flow shaping, lip radiation and three formants in cascade.
    private struct VocalTract {
        private let sampleRate: Double
        private var glottalFlow: OnePole
        private var glottalShape: OnePole
        private var previousFlow = 0.0
        private var formant1: Resonator
        private var formant2: Resonator
        private var formant3: Resonator

        init(sampleRate: Double) {
            self.sampleRate = sampleRate
            glottalFlow = OnePole(cutoff: 200, sampleRate: sampleRate)
            glottalShape = OnePole(cutoff: 200, sampleRate: sampleRate)
            (formant1, formant2, formant3) = Self.formants(of: SyntheticSpeech.vowels[0], sampleRate: sampleRate)
        }

        /// Moves the formants to those of `vowel`, keeping their state.
        mutating func shape(_ vowel: (Double, Double, Double)) {
            let formants = Self.formants(of: vowel, sampleRate: sampleRate)
            formant1.retune(like: formants.0)
            formant2.retune(like: formants.1)
            formant3.retune(like: formants.2)
        }

        private static func formants(
            of vowel: (Double, Double, Double), sampleRate: Double
        ) -> (Resonator, Resonator, Resonator) {
            let ceiling = 0.42 * sampleRate
            return (
                Resonator(formant: min(vowel.0, ceiling), bandwidth: 80, sampleRate: sampleRate),
                Resonator(formant: min(vowel.1, ceiling), bandwidth: 100, sampleRate: sampleRate),
                Resonator(formant: min(vowel.2, ceiling), bandwidth: 120, sampleRate: sampleRate)
            )
        }

        mutating func process(_ excitation: Double) -> Double {
            let flow = glottalShape.process(glottalFlow.process(excitation))
            let radiated = flow - previousFlow
            previousFlow = flow
            return formant3.process(formant2.process(formant1.process(radiated)))
        }

        /// The RMS of a steady /a/ at 150 Hz, to scale vowels to an RMS of about 1.
        static func steadyVowelRMS(sampleRate: Double) -> Double {
            var tract = VocalTract(sampleRate: sampleRate)
            var glottis = Phasor(frequency: 150, sampleRate: sampleRate)
            let count = Int(0.3 * sampleRate)
            var energy = 0.0
            for _ in 0..<count {
                let y = tract.process(glottis.advance() ? 1 : 0)
                energy += y * y
            }
            return (energy / Double(count)).squareRoot()
        }
    }

    /// F1, F2, F3 in Hz of a few vowels.
    private static let vowels: [(Double, Double, Double)] = [
        (730, 1090, 2440), (270, 2290, 3010), (300, 870, 2240), (530, 1840, 2480),
        (570, 840, 2410), (660, 1720, 2410), (440, 1020, 2240),
    ]

    private let sampleRate: Double
    private var generator: SeededGenerator
    private let talkerPitch: Double
    private var segment = Segment.pause
    private var remaining: Int
    private var length = 1
    private var syllablesLeft = 0
    private var phraseLength = 1
    private var phrasePitch = 0.0
    private var syllablePitch = 0.0
    private var glottis: Phasor
    private var tract: VocalTract
    private let voicedGain: Double
    private var fricative: ShapedNoise

    init(sampleRate: Double, generator: SeededGenerator) {
        self.sampleRate = sampleRate
        var g = generator
        talkerPitch = g.uniform(100...220)
        remaining = Int(g.uniform(0.1...1) * sampleRate)
        glottis = Phasor(frequency: talkerPitch, sampleRate: sampleRate)
        tract = VocalTract(sampleRate: sampleRate)
        voicedGain = 1 / VocalTract.steadyVowelRMS(sampleRate: sampleRate)
        fricative = ShapedNoise(band: 2500...7000, sampleRate: sampleRate, generator: SeededGenerator(seed: g.next()))
        self.generator = g
    }

    mutating func next() -> Double {
        if remaining == 0 {
            advance()
        }
        remaining -= 1
        let progress = 1 - Double(remaining) / Double(length)
        switch segment {
        case .pause:
            return 0
        case .consonant:
            return 0.2 * smoothstep(progress / 0.2) * smoothstep((1 - progress) / 0.5) * fricative.next()
        case .vowel:
            var excitation = 0.0
            if glottis.advance() {
                excitation = 1
                let contour = 1 + 0.2 * progress * (1 - progress)
                glottis.increment = syllablePitch * contour * (1 + 0.015 * generator.bipolar()) / sampleRate
            }
            let voiced = voicedGain * tract.process(excitation)
            return smoothstep(progress / 0.15) * smoothstep((1 - progress) / 0.3) * voiced
        }
    }

    private mutating func advance() {
        switch segment {
        case .consonant:
            begin(.vowel, seconds: generator.uniform(0.11...0.2))
        case .vowel:
            begin(.pause, seconds: syllablesLeft > 0 ? generator.uniform(0.01...0.04) : generator.uniform(0.25...1))
        case .pause:
            if syllablesLeft == 0 {
                phraseLength = generator.integer(3...10)
                syllablesLeft = phraseLength
                phrasePitch = talkerPitch * generator.uniform(0.95...1.1)
            }
            let position = Double(phraseLength - syllablesLeft) / Double(phraseLength)
            syllablesLeft -= 1
            syllablePitch = phrasePitch * (1.08 - 0.16 * position) * generator.uniform(0.94...1.08)
            tract.shape(Self.vowels[generator.integer(0...(Self.vowels.count - 1))])
            if generator.nextUnit() < 0.6 {
                begin(.consonant, seconds: generator.uniform(0.03...0.07))
            } else {
                begin(.vowel, seconds: generator.uniform(0.11...0.2))
            }
        }
    }

    private mutating func begin(_ next: Segment, seconds: Double) {
        segment = next
        length = max(1, Int(seconds * sampleRate))
        remaining = length
    }
}
