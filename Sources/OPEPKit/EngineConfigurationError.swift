/// A configuration value the engine cannot work with: which parameter, the value given and the
/// limit it broke, in the parameter's own units.
public struct EngineConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The parameter's name as it appears in the configuration, e.g. `sampleRate`.
    public var parameter: String
    /// The value that was given.
    public var value: Double
    /// The limit it broke, in words with units, e.g. "at least 4000 Hz".
    public var limit: String

    public init(parameter: String, value: Double, limit: String) {
        self.parameter = parameter
        self.value = value
        self.limit = limit
    }

    public var description: String {
        "\(parameter) = \(value.formatted6) is out of range: it must be \(limit)"
    }
}

extension Double {
    var formatted6: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}

func require(_ condition: Bool, _ parameter: String, _ value: Double, _ limit: String) throws(EngineConfigurationError) {
    if !condition || !value.isFinite { throw EngineConfigurationError(parameter: parameter, value: value, limit: limit) }
}
