extension SimulationConfiguration {
    /// The sample rates a random session is recorded at, in Hz.
    public static let randomSampleRates: [Double] = [8000, 11025, 16000, 22050, 32000, 44100, 48000, 96000]

    /// A random session drawn from `seed`: one set of 6-10 breaths with plateaus anywhere in
    /// 8-30 cmH2O and 0-3 huff coughs (about 35-70 s), at one of ``randomSampleRates``, with a
    /// modulation depth of 0.4-1 and a random ``SessionVariation`` (which may mix in one of
    /// `recordings`). Without a real recording the interference is a synthetic ``NoiseKind`` at
    /// -35...-10 dB; with one, a room tone at -40...-25 dB.
    public static func random(seed: UInt64, recordings: [String] = []) -> SimulationConfiguration {
        var g = SeededGenerator(seed: seed, stream: .session)
        let variation = SessionVariation.random(seed: seed, recordings: recordings)
        let synthetic = variation.recording == nil
        return SimulationConfiguration(
            sampleRate: randomSampleRates[g.integer(0...(randomSampleRates.count - 1))],
            sets: 1,
            breathsPerSet: g.integer(6...10),
            pressureRange: 8...30,
            noiseKind: synthetic ? NoiseKind.allCases[g.integer(0...(NoiseKind.allCases.count - 1))] : .room,
            noiseLevelDB: synthetic ? g.uniform(-35...(-10)) : g.uniform(-40...(-25)),
            huffCoughsPerSet: g.integer(0...3),
            leadInSilence: g.uniform(1...3),
            modulationDepth: g.uniform(0.4...1),
            seed: seed,
            variation: variation)
    }

    /// The same session breathed near the phone without the device (``withoutDevice``): its rate,
    /// room, phone, chain and interference, its breaths exhalations without the device; where it
    /// drew no real breath, real breath drawn from its seed.
    public func breathedWithoutDevice() -> SimulationConfiguration {
        var configuration = self
        var variation = self.variation ?? SessionVariation(sound: SoundVariation(), chain: RecordingChain())
        if variation.breath == nil {
            var g = SeededGenerator(seed: seed, stream: .realBreath)
            variation.breath = RealBreath.random(using: &g)
        }
        configuration.variation = variation
        configuration.withoutDevice = true
        return configuration
    }

    /// A few words on the draw, for tables: rate, interference, level, chain.
    public var summary: String {
        let rate = sampleRate.truncatingRemainder(dividingBy: 1000) == 0
            ? "\(Int(sampleRate / 1000))k" : "\(rounded(sampleRate / 1000, 2))k"
        let noise = variation?.recording == nil ? "\(noiseKind.rawValue) \(Int(noiseLevelDB.rounded())) dB" : nil
        return ([rate, noise, variation?.summary].compactMap { $0 }).joined(separator: ", ")
    }
}
