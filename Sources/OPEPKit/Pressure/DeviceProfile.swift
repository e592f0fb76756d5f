/// An OPEP device as the engine sees it: the band its rocker flutters in and the straight line
/// that turns flutter pitch into expiratory pressure.
///
/// The default, ``acapella``, is the line published for the Acapella with 19 people at both
/// resistance settings: `pressure [cmH2O] = -4.659 + 1.119 × pitch [Hz]` (r² = 0.886).
/// A researcher can replace it with a line fitted for another device or person. As JSON:
/// `{"name": "Acapella", "lower_frequency_hz": 10, "upper_frequency_hz": 40,
/// "intercept_cmh2o": -4.659, "slope_cmh2o_per_hz": 1.119}`.
public struct DeviceProfile: Sendable, Hashable {
    /// A short human name, e.g. "Acapella".
    public var name: String
    /// Lowest flutter frequency searched for, in Hz.
    public var lowerFrequency: Double
    /// Highest flutter frequency searched for, in Hz.
    public var upperFrequency: Double
    /// Pressure at zero pitch, in cmH2O.
    public var interceptCmH2O: Double
    /// Pressure change per Hz of flutter, in cmH2O/Hz.
    public var slopeCmH2OPerHz: Double

    public init(
        name: String, lowerFrequency: Double, upperFrequency: Double,
        interceptCmH2O: Double, slopeCmH2OPerHz: Double
    ) {
        self.name = name
        self.lowerFrequency = lowerFrequency
        self.upperFrequency = upperFrequency
        self.interceptCmH2O = interceptCmH2O
        self.slopeCmH2OPerHz = slopeCmH2OPerHz
    }

    /// The Acapella line of the pitch-to-pressure study: band 10-40 Hz, -4.659 + 1.119 × pitch.
    public static let acapella = DeviceProfile(
        name: "Acapella", lowerFrequency: 10, upperFrequency: 40,
        interceptCmH2O: -4.659, slopeCmH2OPerHz: 1.119)

    /// The expiratory pressure in cmH2O predicted for a flutter pitch in Hz.
    public func pressure(forPitch pitch: Double) -> Double {
        interceptCmH2O + slopeCmH2OPerHz * pitch
    }

    /// The flutter pitch in Hz that the line predicts for a pressure in cmH2O.
    public func pitch(forPressure pressure: Double) -> Double {
        (pressure - interceptCmH2O) / slopeCmH2OPerHz
    }

    /// Checks that the band and the line make sense, throwing a ``DeviceProfileError`` that names
    /// the offending value otherwise.
    public func validate() throws(DeviceProfileError) {
        guard lowerFrequency.isFinite, lowerFrequency >= 1 else {
            throw .invalidBand(lower: lowerFrequency, upper: upperFrequency, reason: "the lower frequency must be at least 1 Hz")
        }
        guard upperFrequency.isFinite, upperFrequency > lowerFrequency * 1.2 else {
            throw .invalidBand(lower: lowerFrequency, upper: upperFrequency, reason: "the upper frequency must be at least 1.2 times the lower")
        }
        guard upperFrequency <= 90 else {
            throw .invalidBand(lower: lowerFrequency, upper: upperFrequency, reason: "the upper frequency must be at most 90 Hz (the tracker's energy signal runs at ~1 kHz)")
        }
        guard interceptCmH2O.isFinite, slopeCmH2OPerHz.isFinite, slopeCmH2OPerHz != 0 else {
            throw .invalidLine(intercept: interceptCmH2O, slope: slopeCmH2OPerHz)
        }
    }
}

/// Why a ``DeviceProfile`` cannot be used.
public enum DeviceProfileError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidBand(lower: Double, upper: Double, reason: String)
    case invalidLine(intercept: Double, slope: Double)

    public var description: String {
        switch self {
        case let .invalidBand(lower, upper, reason):
            "flutter band \(lower)-\(upper) Hz is not usable: \(reason)"
        case let .invalidLine(intercept, slope):
            "pressure line \(intercept) + \(slope) × pitch is not usable: intercept and slope must be finite numbers and the slope must not be zero"
        }
    }
}

// JSON lives in the outer modules; Embedded Swift has no Codable.
#if !hasFeature(Embedded)
extension DeviceProfile: Codable {
    enum CodingKeys: String, CodingKey {
        case name, lowerFrequency = "lower_frequency_hz", upperFrequency = "upper_frequency_hz"
        case interceptCmH2O = "intercept_cmh2o", slopeCmH2OPerHz = "slope_cmh2o_per_hz"
    }
}
#endif
