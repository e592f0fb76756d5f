/// Where a pressure lies against the therapy target.
public enum PressureZone: String, Sendable, Hashable, CaseIterable {
    case below, within = "in", above
}

/// The prescribed expiratory pressure band, 10-20 cmH2O by default.
public struct TargetRange: Sendable, Hashable {
    /// Lowest pressure that counts as on target, in cmH2O.
    public var lowerCmH2O: Double
    /// Highest pressure that counts as on target, in cmH2O.
    public var upperCmH2O: Double

    public init(lowerCmH2O: Double = 10, upperCmH2O: Double = 20) {
        self.lowerCmH2O = lowerCmH2O
        self.upperCmH2O = upperCmH2O
    }

    /// The usual OPEP prescription, 10-20 cmH2O.
    public static let standard = TargetRange()

    /// The zone of a pressure: below the lower bound, within the band (bounds included), or above.
    public func zone(of pressure: Double) -> PressureZone {
        if pressure < lowerCmH2O { return .below }
        if pressure > upperCmH2O { return .above }
        return .within
    }
}

// JSON lives in the outer modules; Embedded Swift has no Codable.
#if !hasFeature(Embedded)
extension PressureZone: Codable {}
extension TargetRange: Codable {
    enum CodingKeys: String, CodingKey {
        case lowerCmH2O = "lower_cmh2o", upperCmH2O = "upper_cmh2o"
    }
}
#endif
