import Foundation

/// Music-like interference: a four-bar chord progression in a random key and tempo (84-128 bpm),
/// strummed in a random eighth-note rhythm as harmonic tones, with a bass line on roots and fifths
/// and a hi-hat on the off-beats.
struct SyntheticMusic: InterferenceSource {
    /// A struck harmonic tone: a 5 ms attack, then an exponential decay.
    private struct Tone {
        var phasor: Phasor
        var level = 0.0
        var attacking = false
        let attackStep: Double
        let decay: Double

        init(decayTime: Double, sampleRate: Double) {
            phasor = Phasor(frequency: 0, sampleRate: sampleRate)
            attackStep = 1 / (0.005 * sampleRate)
            decay = exp(-1 / (decayTime * sampleRate))
        }

        mutating func strike(note: Int, sampleRate: Double) {
            phasor.increment = 440 * pow(2, Double(note - 69) / 12) / sampleRate
            attacking = true
        }

        mutating func next(_ table: WaveTable) -> Double {
            if attacking {
                level += attackStep
                if level >= 1 {
                    level = 1
                    attacking = false
                }
            } else {
                level = level < 1e-9 ? 0 : level * decay
            }
            _ = phasor.advance()
            return level * table.value(at: phasor.phase)
        }
    }

    /// Chord roots in semitones above the key and whether the chord is minor.
    private static let progressions: [[(root: Int, minor: Bool)]] = [
        [(0, false), (7, false), (9, true), (5, false)],
        [(9, true), (5, false), (0, false), (7, false)],
        [(0, false), (5, false), (7, false), (5, false)],
        [(2, true), (7, false), (0, false), (9, true)],
    ]

    private let sampleRate: Double
    private let chordTable = WaveTable(harmonics: [1, 0.5, 0.33, 0.25, 0.15, 0.1])
    private let bassTable = WaveTable(harmonics: [1, 0.7, 0.4, 0.25, 0.15, 0.1, 0.05])
    private let key: Int
    private let progression: [(root: Int, minor: Bool)]
    private let strums: [Bool]
    private let bassNotes: [Int?]
    private let samplesPerEighth: Int
    private var remaining = 0
    private var slot = -1
    private var bar = -1
    private var voices: [Tone]
    private var bass: Tone
    private var hat = 0.0
    private let hatDecay: Double
    private var hatNoise: ShapedNoise

    init(sampleRate: Double, generator: SeededGenerator) {
        self.sampleRate = sampleRate
        var g = generator
        key = g.integer(55...62)
        progression = Self.progressions[g.integer(0...(Self.progressions.count - 1))]
        strums = (0..<8).map { $0 == 0 || g.nextUnit() < 0.35 }
        bassNotes = (0..<8).map { slot in
            if slot == 0 { return 0 }
            if slot == 4 { return g.nextUnit() < 0.5 ? 0 : 7 }
            return g.nextUnit() < 0.2 ? 7 : nil
        }
        samplesPerEighth = Int(30 / g.uniform(84...128) * sampleRate)
        voices = (0..<3).map { _ in Tone(decayTime: g.uniform(0.35...0.6), sampleRate: sampleRate) }
        bass = Tone(decayTime: 0.5, sampleRate: sampleRate)
        hatDecay = exp(-1 / (0.03 * sampleRate))
        hatNoise = ShapedNoise(band: 6000...12000, sampleRate: sampleRate, generator: SeededGenerator(seed: g.next()))
    }

    mutating func next() -> Double {
        if remaining == 0 {
            advance()
        }
        remaining -= 1
        var chord = 0.0
        for i in voices.indices {
            chord += voices[i].next(chordTable)
        }
        var sample = 0.4 * chord + 0.8 * bass.next(bassTable)
        if hat > 0 {
            hat = hat < 1e-4 ? 0 : hat * hatDecay
            sample += 0.3 * hat * hatNoise.next()
        }
        return sample
    }

    private mutating func advance() {
        remaining = samplesPerEighth
        slot = (slot + 1) % 8
        if slot == 0 {
            bar += 1
        }
        let chord = progression[bar % progression.count]
        if strums[slot] {
            let intervals = [0, chord.minor ? 3 : 4, 7]
            for (i, interval) in intervals.enumerated() {
                var note = key + chord.root + interval
                while note >= 72 { note -= 12 }
                voices[i].strike(note: note, sampleRate: sampleRate)
            }
        }
        if let offset = bassNotes[slot] {
            var note = key - 24 + chord.root + offset
            while note >= 45 { note -= 12 }
            bass.strike(note: note, sampleRate: sampleRate)
        }
        if slot % 2 == 1 {
            hat = 1
        }
    }
}
