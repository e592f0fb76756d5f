import Foundation

/// The parts of `opep analyze --format json` the tests read.
struct AnalysisReport: Decodable {
    struct Settings: Decodable {
        var file: String
        var device: Device
        var target: Target
        /// Spacing of the frames, in seconds.
        var frameInterval: Double

        enum CodingKeys: String, CodingKey { case file, device, target, frameInterval = "frame_interval_s" }
    }

    struct Device: Decodable {
        var name: String
        var interceptCmH2O: Double
        var slopeCmH2OPerHz: Double

        enum CodingKeys: String, CodingKey {
            case name, interceptCmH2O = "intercept_cmh2o", slopeCmH2OPerHz = "slope_cmh2o_per_hz"
        }
    }

    struct Target: Decodable {
        var lower: Double
        var upper: Double

        enum CodingKeys: String, CodingKey { case lower = "lower_cmh2o", upper = "upper_cmh2o" }
    }

    struct Summary: Decodable {
        var breaths: Int
        var sets: Int
        var meanPressure: Double?
        var meanPitch: Double?
        var timeShare: ZoneShares?

        enum CodingKeys: String, CodingKey {
            case breaths, sets, meanPressure = "mean_pressure_cmh2o", meanPitch = "mean_pitch_hz", timeShare = "time_share"
        }
    }

    struct ZoneShares: Decodable {
        var below: Double
        var within: Double
        var above: Double

        enum CodingKeys: String, CodingKey { case below, within = "in", above }
    }

    struct Breath: Decodable {
        var index: Int
        var set: Int
        var start: Double
        var end: Double
        var meanPressure: Double?
        var meanPitch: Double?

        enum CodingKeys: String, CodingKey {
            case index, set, start = "start_s", end = "end_s", meanPressure = "mean_pressure_cmh2o", meanPitch = "mean_pitch_hz"
        }
    }

    var settings: Settings
    var summary: Summary
    var breaths: [Breath]

    init(json: String) throws {
        self = try JSONDecoder().decode(AnalysisReport.self, from: Data(json.utf8))
    }
}

struct MalformedCSV: Error, CustomStringConvertible {
    var description: String
}

/// Comma-separated rows after the header; every row must have `columns` fields.
private func csvRows(_ text: String, columns: Int) throws -> [[Substring]] {
    let lines = text.split(separator: "\n").dropFirst()
    return try lines.map { line in
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == columns else { throw MalformedCSV(description: "\(fields.count) fields instead of \(columns): \(line)") }
        return fields
    }
}

private func number(_ field: Substring) throws -> Double {
    guard let value = Double(field) else { throw MalformedCSV(description: "not a number: '\(field)'") }
    return value
}

private func optionalNumber(_ field: Substring) throws -> Double? {
    field.isEmpty ? nil : try number(field)
}

private func flag(_ field: Substring) throws -> Bool {
    switch field {
    case "0": return false
    case "1": return true
    default: throw MalformedCSV(description: "not 0 or 1: '\(field)'")
    }
}

/// One row of `opep analyze --format csv`: `time_s,pitch_hz,pressure_cmh2o,confidence,exhaling,zone,level_db`.
/// The signal check's reasons as the frame CSV names them.
let signalReasons = ["clipped", "too_noisy", "too_quiet", "too_far", "band_limited", "no_flutter", "gain_control"]

struct FrameRow {
    var time: Double
    var pitch: Double?
    var pressure: Double?
    var confidence: Double
    var exhaling: Bool
    /// `below`, `in` or `above` the target; empty without a pressure.
    var zone: String
    /// The signal check's reason, empty for none.
    var signal: String

    static func parse(_ text: String) throws -> [FrameRow] {
        try csvRows(text, columns: 8).map { fields in
            guard fields[7].isEmpty || signalReasons.contains(String(fields[7])) else {
                throw MalformedCSV(description: "not a signal check reason: '\(fields[7])'")
            }
            return FrameRow(
                time: try number(fields[0]), pitch: try optionalNumber(fields[1]), pressure: try optionalNumber(fields[2]),
                confidence: try number(fields[3]), exhaling: try flag(fields[4]), zone: String(fields[5]), signal: String(fields[7]))
        }
    }
}

/// One row of the ground truth CSV: `time_s,pitch_hz,pressure_cmh2o,exhaling`.
struct TruthRow {
    var time: Double
    var pitch: Double?
    var pressure: Double?
    var exhaling: Bool

    static func parse(_ text: String) throws -> [TruthRow] {
        try csvRows(text, columns: 4).map { fields in
            TruthRow(
                time: try number(fields[0]), pitch: try optionalNumber(fields[1]), pressure: try optionalNumber(fields[2]),
                exhaling: try flag(fields[3]))
        }
    }
}

/// The first line of a text.
func firstLine(_ text: String) -> String {
    text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
}
