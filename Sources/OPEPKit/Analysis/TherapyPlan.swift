/// What the physiotherapist prescribed: the pressure target, breaths per set, sets, minutes,
/// sessions a day and the device. The analysis uses its target and device; the live coach also
/// counts breaths against the set and the session against the minutes, and the history and the
/// adherence reports count the days' sessions against the sessions a day.
public struct TherapyPlan: Sendable, Hashable {
    /// Prescribed pressure band in cmH2O (default 10-20).
    public var target: TargetRange
    /// Breaths in a set before the huff coughs (default 10).
    public var breathsPerSet: Int
    /// Sets in a session (default 3).
    public var sets: Int
    /// Length of a session in minutes (default 15).
    public var minutes: Double
    /// Sessions a day (default 2).
    public var sessionsPerDay: Int
    /// The device used (default the Acapella).
    public var device: DeviceProfile

    public init(
        target: TargetRange = .standard, breathsPerSet: Int = 10, sets: Int = 3, minutes: Double = 15,
        sessionsPerDay: Int = 2, device: DeviceProfile = .acapella
    ) {
        self.target = target
        self.breathsPerSet = breathsPerSet
        self.sets = sets
        self.minutes = minutes
        self.sessionsPerDay = sessionsPerDay
        self.device = device
    }

    /// The usual plan: 10-20 cmH2O, 3 sets of 10 breaths, 15 minutes, twice a day, an Acapella.
    public static let standard = TherapyPlan()

    /// Throws if a value makes no sense, naming the parameter, the value and the limit.
    public func validate() throws(EngineConfigurationError) {
        try require(target.lowerCmH2O >= 0 && target.lowerCmH2O < target.upperCmH2O, "target_low_cmh2o", target.lowerCmH2O, "at least 0 and below target_high_cmh2o (\(target.upperCmH2O))")
        try require(target.upperCmH2O <= 100, "target_high_cmh2o", target.upperCmH2O, "at most 100 cmH2O")
        try require(breathsPerSet >= 1 && breathsPerSet <= 100, "breaths_per_set", Double(breathsPerSet), "between 1 and 100")
        try require(sets >= 1 && sets <= 50, "sets", Double(sets), "between 1 and 50")
        try require(minutes >= 1 && minutes <= 180, "minutes", minutes, "between 1 and 180")
        try require(sessionsPerDay >= 1 && sessionsPerDay <= 10, "sessions_per_day", Double(sessionsPerDay), "between 1 and 10")
        do {
            try device.validate()
        } catch {
            throw EngineConfigurationError(parameter: "device", value: device.lowerFrequency, limit: "a usable profile (\(error))")
        }
    }
}

// JSON lives in the outer modules; Embedded Swift has no Codable.
#if !hasFeature(Embedded)
extension TherapyPlan: Codable {
    enum CodingKeys: String, CodingKey {
        case targetLow = "target_low_cmh2o", targetHigh = "target_high_cmh2o"
        case breathsPerSet = "breaths_per_set", sets, minutes, sessionsPerDay = "sessions_per_day", device
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = TherapyPlan.standard
        target = TargetRange(
            lowerCmH2O: try c.decodeIfPresent(Double.self, forKey: .targetLow) ?? d.target.lowerCmH2O,
            upperCmH2O: try c.decodeIfPresent(Double.self, forKey: .targetHigh) ?? d.target.upperCmH2O)
        breathsPerSet = try c.decodeIfPresent(Int.self, forKey: .breathsPerSet) ?? d.breathsPerSet
        sets = try c.decodeIfPresent(Int.self, forKey: .sets) ?? d.sets
        minutes = try c.decodeIfPresent(Double.self, forKey: .minutes) ?? d.minutes
        sessionsPerDay = try c.decodeIfPresent(Int.self, forKey: .sessionsPerDay) ?? d.sessionsPerDay
        device = try c.decodeIfPresent(DeviceProfile.self, forKey: .device) ?? d.device
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(target.lowerCmH2O, forKey: .targetLow)
        try c.encode(target.upperCmH2O, forKey: .targetHigh)
        try c.encode(breathsPerSet, forKey: .breathsPerSet)
        try c.encode(sets, forKey: .sets)
        try c.encode(minutes, forKey: .minutes)
        try c.encode(sessionsPerDay, forKey: .sessionsPerDay)
        try c.encode(device, forKey: .device)
    }
}
#endif
