import OPEPKit

/// Everything that shapes a synthetic OPEP session. The same configuration (seed included) always
/// renders the same audio, sample for sample.
///
/// Decoding accepts partial JSON: a missing key keeps its default.
public struct SimulationConfiguration: Sendable, Codable, Hashable {
    /// Output sample rate in Hz (8000...192000).
    public var sampleRate: Double
    /// Number of sets of breaths (1...1000).
    public var sets: Int
    /// Exhalations through the device per set (1...100).
    public var breathsPerSet: Int
    /// Range the plateau pressure of each breath is drawn from uniformly, in cmH2O. It must lie in
    /// the device's flutter band, at least 1 cmH2O above the pressure of its lowest pitch.
    /// A single value (e.g. `15...15`) gives every breath the same plateau.
    public var pressureRange: ClosedRange<Double>
    /// The interference playing under the session.
    public var noiseKind: NoiseKind
    /// Interference level in dB relative to the RMS of a nominal exhalation (-120...20).
    /// Continuous kinds are measured by their long-term RMS, coughs by the RMS of a burst,
    /// both as the phone microphone hears them.
    public var noiseLevelDB: Double
    /// Huff coughs after the breaths of each set (0...10).
    public var huffCoughsPerSet: Int
    /// Nominal rest between sets in seconds (0...3600); each rest varies by ±15 %.
    public var restBetweenSets: Double
    /// Seconds of room tone before the first breath (0...3600).
    public var leadInSilence: Double
    /// Depth of the rocker's amplitude modulation of the airflow noise (0...1): the envelope swings
    /// between `1 - modulationDepth` (rocker closed) and 1 (open).
    public var modulationDepth: Double
    /// Amplitude of a buzz at the flutter pitch (0...3; default 0, none), relative to the RMS of a
    /// nominal exhalation's flow noise: a square wave, as a valve that opens and closes sharply
    /// makes, half a cycle up and half down. Once the microphone's high-pass has taken its
    /// fundamental, an edge of either sign per cycle is left, whose envelope repeats every half
    /// cycle.
    public var buzzLevel: Double
    /// The device whose line turns pressure into flutter pitch.
    public var device: DeviceProfile
    /// Seed of every random draw.
    public var seed: UInt64
    /// How the session departs from the nominal sound; nil renders it exactly as it always was.
    public var variation: SessionVariation?
    /// The patient breathes near the phone without the device: every breath through it becomes an
    /// exhalation without it and there are no huff coughs, so nothing in the session is a breath
    /// (default false). Needs real breath (`variation.breath`), whose exhalations these are.
    public var withoutDevice: Bool

    public init(
        sampleRate: Double = 44100,
        sets: Int = 2,
        breathsPerSet: Int = 10,
        pressureRange: ClosedRange<Double> = 8...22,
        noiseKind: NoiseKind = .room,
        noiseLevelDB: Double = -25,
        huffCoughsPerSet: Int = 2,
        restBetweenSets: Double = 20,
        leadInSilence: Double = 2,
        modulationDepth: Double = 0.85,
        buzzLevel: Double = 0,
        device: DeviceProfile = .acapella,
        seed: UInt64 = 1,
        variation: SessionVariation? = nil,
        withoutDevice: Bool = false
    ) {
        self.sampleRate = sampleRate
        self.sets = sets
        self.breathsPerSet = breathsPerSet
        self.pressureRange = pressureRange
        self.noiseKind = noiseKind
        self.noiseLevelDB = noiseLevelDB
        self.huffCoughsPerSet = huffCoughsPerSet
        self.restBetweenSets = restBetweenSets
        self.leadInSilence = leadInSilence
        self.modulationDepth = modulationDepth
        self.buzzLevel = buzzLevel
        self.device = device
        self.seed = seed
        self.variation = variation
        self.withoutDevice = withoutDevice
    }

    private enum CodingKeys: String, CodingKey {
        case sampleRate, sets, breathsPerSet, pressureRange, noiseKind, noiseLevelDB, huffCoughsPerSet
        case restBetweenSets, leadInSilence, modulationDepth, buzzLevel, device, seed, variation, withoutDevice
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = SimulationConfiguration()
        sampleRate = try c.decodeIfPresent(Double.self, forKey: .sampleRate) ?? d.sampleRate
        sets = try c.decodeIfPresent(Int.self, forKey: .sets) ?? d.sets
        breathsPerSet = try c.decodeIfPresent(Int.self, forKey: .breathsPerSet) ?? d.breathsPerSet
        pressureRange = try c.decodeIfPresent(ClosedRange<Double>.self, forKey: .pressureRange) ?? d.pressureRange
        noiseKind = try c.decodeIfPresent(NoiseKind.self, forKey: .noiseKind) ?? d.noiseKind
        noiseLevelDB = try c.decodeIfPresent(Double.self, forKey: .noiseLevelDB) ?? d.noiseLevelDB
        huffCoughsPerSet = try c.decodeIfPresent(Int.self, forKey: .huffCoughsPerSet) ?? d.huffCoughsPerSet
        restBetweenSets = try c.decodeIfPresent(Double.self, forKey: .restBetweenSets) ?? d.restBetweenSets
        leadInSilence = try c.decodeIfPresent(Double.self, forKey: .leadInSilence) ?? d.leadInSilence
        modulationDepth = try c.decodeIfPresent(Double.self, forKey: .modulationDepth) ?? d.modulationDepth
        buzzLevel = try c.decodeIfPresent(Double.self, forKey: .buzzLevel) ?? d.buzzLevel
        device = try c.decodeIfPresent(DeviceProfile.self, forKey: .device) ?? d.device
        seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? d.seed
        variation = try c.decodeIfPresent(SessionVariation.self, forKey: .variation)
        withoutDevice = try c.decodeIfPresent(Bool.self, forKey: .withoutDevice) ?? d.withoutDevice
    }

    /// The lowest pressure at which the rocker flutters: the device line at its lowest pitch.
    var flutterThresholdPressure: Double {
        device.pressure(forPitch: device.lowerFrequency)
    }

    /// Checks every parameter, throwing a ``SimulationError`` that names the first offending
    /// parameter, its value and the allowed values.
    public func validate() throws(SimulationError) {
        try check("sampleRate", sampleRate, 8000...192_000, unit: " Hz")
        try check("sets", sets, 1...1000)
        try check("breathsPerSet", breathsPerSet, 1...100)
        try check("noiseLevelDB", noiseLevelDB, -120...20, unit: " dB")
        try check("huffCoughsPerSet", huffCoughsPerSet, 0...10)
        try check("restBetweenSets", restBetweenSets, 0...3600, unit: " s")
        try check("leadInSilence", leadInSilence, 0...3600, unit: " s")
        try check("modulationDepth", modulationDepth, 0...1)
        try check("buzzLevel", buzzLevel, 0...3)
        try variation?.validate()
        if withoutDevice, variation?.breath == nil {
            throw .outOfRange(parameter: "withoutDevice", value: "true", limit: "only with real breath (variation.breath)")
        }
        do {
            try device.validate()
        } catch {
            throw .invalidDevice(error)
        }
        guard device.slopeCmH2OPerHz > 0 else {
            throw .outOfRange(
                parameter: "device.slopeCmH2OPerHz", value: "\(device.slopeCmH2OPerHz)",
                limit: "> 0 (pressure must rise with pitch)")
        }
        let lowest = flutterThresholdPressure + 1
        let highest = device.pressure(forPitch: device.upperFrequency)
        guard pressureRange.lowerBound.isFinite, pressureRange.upperBound.isFinite,
            pressureRange.lowerBound >= lowest, pressureRange.upperBound <= highest
        else {
            throw .outOfRange(
                parameter: "pressureRange", value: "\(pressureRange)",
                limit: "within \(Self.rounded(lowest))...\(Self.rounded(highest)) cmH2O for \(device.name)")
        }
    }

    private static func rounded(_ value: Double) -> Double {
        (value * 100).rounded() / 100
    }
}
