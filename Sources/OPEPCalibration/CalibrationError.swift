/// Why a calibration could not be done; each case says what to fix.
public enum CalibrationError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case missingHeader(found: String)
    case missingColumn(String)
    case malformedRow(line: Int, reason: String)
    case nonIncreasingTime(line: Int, time: Double, previous: Double)
    case timeOutOfRange(line: Int, time: Double, limit: Double)
    case traceTooLong(duration: Double, limit: Double)
    case tooFewSamples(Int)
    case mismatchedLengths(pitches: Int, pressures: Int)
    case noOverlap(recording: ClosedRange<Double>, manometer: ClosedRange<Double>, offset: Double)
    case tooFewPairs(Int)
    case constantPitch

    public var description: String {
        switch self {
        case .empty:
            "the manometer file is empty"
        case let .missingHeader(found):
            "the manometer file needs a header line 'time_s,pressure_cmh2o', found '\(found.prefix(60))'"
        case let .missingColumn(name):
            "the manometer file has no '\(name)' column (the header needs time_s and pressure_cmh2o)"
        case let .malformedRow(line, reason):
            "line \(line): \(reason)"
        case let .nonIncreasingTime(line, time, previous):
            "line \(line): time \(time) s does not increase (previous \(previous) s)"
        case let .timeOutOfRange(line, time, limit):
            "line \(line): time \(time) s lies beyond ±\(limit) s (give the seconds since the manometer started)"
        case let .traceTooLong(duration, limit):
            "the manometer's trace spans \(round3(duration)) s, more than a calibration takes (at most \(Int(limit)) s): give the part recorded with the sound"
        case let .tooFewSamples(count):
            "the manometer file has \(count) sample\(count == 1 ? "" : "s"); at least 2 are needed"
        case let .mismatchedLengths(pitches, pressures):
            "\(pitches) pitch values but \(pressures) pressures: they must pair up one to one"
        case let .noOverlap(recording, manometer, offset):
            "the recording (\(format(recording))) and the manometer (\(format(manometer)) shifted by \(round3(offset)) s) do not overlap in time"
        case let .tooFewPairs(count):
            "only \(count) pitch frame\(count == 1 ? "" : "s") fall within the manometer's trace; at least 10 are needed to fit a line"
        case .constantPitch:
            "every paired pitch is the same, so no slope can be fitted (breathe at several pressures)"
        }
    }

    private func format(_ range: ClosedRange<Double>) -> String { "\(round3(range.lowerBound))-\(round3(range.upperBound)) s" }
    private func round3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}
