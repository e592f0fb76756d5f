import OPEPKit

/// Why a ``SimulationConfiguration`` cannot be simulated.
public enum SimulationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A parameter lies outside what the simulator supports; `limit` describes the allowed values.
    case outOfRange(parameter: String, value: String, limit: String)
    /// The device profile itself is unusable.
    case invalidDevice(DeviceProfileError)
    /// A ``RecordedInterference`` names a recording the ``RecordingLibrary`` does not hold (or an empty one).
    case missingRecording(String)

    public var description: String {
        switch self {
        case let .outOfRange(parameter, value, limit):
            "\(parameter) = \(value) is out of range: allowed \(limit)"
        case let .invalidDevice(error):
            "device: \(error)"
        case let .missingRecording(name):
            "recording \(name) is not in the library of real recordings (or is empty)"
        }
    }

    /// The name of the offending parameter.
    public var parameter: String {
        switch self {
        case let .outOfRange(parameter, _, _): parameter
        case .invalidDevice: "device"
        case .missingRecording: "recording.files"
        }
    }
}
