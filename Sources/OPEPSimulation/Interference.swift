/// A source of interference: one sample per call, for ever.
protocol InterferenceSource: Sendable {
    mutating func next() -> Double
}

/// Everything that plays besides the patient: a faint room tone always, plus the configured
/// ``NoiseKind`` at the configured level relative to a nominal exhalation.
struct Interference: Sendable {
    /// Level of the ever-present room tone relative to a nominal exhalation, in dB.
    static let roomToneDB = -50.0
    /// Seconds of a continuous source rendered at start-up to measure its level.
    static let calibrationSeconds = 6.0

    private var roomTone: RoomNoise
    private let roomToneGain: Double
    private var room: RoomNoise?
    private var roomGain = 0.0
    private var fan: FanNoise?
    private var fanGain = 0.0
    private var speech: SyntheticSpeech?
    private var speechGain = 0.0
    private var music: SyntheticMusic?
    private var musicGain = 0.0
    private var cough: CoughBursts?
    private var coughGain = 0.0

    init(configuration c: SimulationConfiguration) {
        let rate = c.sampleRate
        func generator(_ stream: RandomStream) -> SeededGenerator { SeededGenerator(seed: c.seed, stream: stream) }
        roomTone = RoomNoise(sampleRate: rate, generator: generator(.roomTone))
        roomToneGain = amplitude(decibels: Self.roomToneDB) / Self.measuredRMS(of: roomTone, sampleRate: rate)

        let level = amplitude(decibels: c.noiseLevelDB)
        let weights: (room: Double, fan: Double, speech: Double, music: Double, cough: Double) =
            switch c.noiseKind {
            case .quiet: (0, 0, 0, 0, 0)
            case .room: (1, 0, 0, 0, 0)
            case .fan: (0, 1, 0, 0, 0)
            case .speech: (0, 0, 1, 0, 0)
            case .music: (0, 0, 0, 1, 0)
            case .cough: (0, 0, 0, 0, 1)
            case .mixed: (0.5, 0.4, 0.6, 0.5, 0.7)
            }
        let continuous = (weights.room * weights.room + weights.fan * weights.fan
            + weights.speech * weights.speech + weights.music * weights.music).squareRoot()
        let scale = continuous > 0 ? level / continuous : level
        if weights.room > 0 {
            let source = RoomNoise(sampleRate: rate, generator: generator(.room))
            room = source
            roomGain = scale * weights.room / Self.measuredRMS(of: source, sampleRate: rate)
        }
        if weights.fan > 0 {
            let source = FanNoise(sampleRate: rate, generator: generator(.fan))
            fan = source
            fanGain = scale * weights.fan / Self.measuredRMS(of: source, sampleRate: rate)
        }
        if weights.speech > 0 {
            let source = SyntheticSpeech(sampleRate: rate, generator: generator(.speech))
            speech = source
            speechGain = scale * weights.speech / Self.measuredRMS(of: source, sampleRate: rate)
        }
        if weights.music > 0 {
            let source = SyntheticMusic(sampleRate: rate, generator: generator(.music))
            music = source
            musicGain = scale * weights.music / Self.measuredRMS(of: source, sampleRate: rate)
        }
        if weights.cough > 0 {
            cough = CoughBursts(sampleRate: rate, generator: generator(.cough))
            coughGain = level * weights.cough
        }
    }

    /// Replaces the contents of `output` with the next `output.count` samples of interference.
    mutating func render(into output: UnsafeMutableBufferPointer<Double>) {
        for i in output.indices {
            output[i] = roomToneGain * roomTone.next()
        }
        Self.add(&room, gain: roomGain, into: output)
        Self.add(&fan, gain: fanGain, into: output)
        Self.add(&speech, gain: speechGain, into: output)
        Self.add(&music, gain: musicGain, into: output)
        Self.add(&cough, gain: coughGain, into: output)
    }

    private static func add<Source: InterferenceSource>(
        _ source: inout Source?, gain: Double, into output: UnsafeMutableBufferPointer<Double>
    ) {
        guard var playing = source else { return }
        source = nil
        for i in output.indices {
            output[i] += gain * playing.next()
        }
        source = playing
    }

    /// The RMS of the first seconds of a copy of `source`, as the phone microphone hears it.
    private static func measuredRMS<Source: InterferenceSource>(of source: Source, sampleRate: Double) -> Double {
        var copy = source
        var microphone = MicrophoneResponse(sampleRate: sampleRate)
        let count = Int(calibrationSeconds * sampleRate)
        var energy = 0.0
        for _ in 0..<count {
            let y = microphone.filter(copy.next())
            energy += y * y
        }
        return max((energy / Double(count)).squareRoot(), 1e-12)
    }
}
