import Foundation

/// A manometer's pressure over time, read from CSV with a header: `time_s,pressure_cmh2o`
/// (other columns are ignored; the two may be in any order).
public struct ManometerTrace: Sendable, Hashable {
    /// Seconds, strictly increasing.
    public let times: [Double]
    /// cmH2O, one per time.
    public let pressures: [Double]

    /// The longest trace a calibration takes, in seconds (4 hours). A calibration lasts minutes;
    /// the alignment and the pressure's flutter are computed over every 10 ms and every 1/8000 s
    /// of the trace, so a trace of days would take hours or more memory than there is.
    public static let longestDuration = 4 * 3600.0
    /// The largest time a sample may carry either side of zero, in seconds (10¹⁰ s: more than
    /// the seconds since 1970 of any clock).
    public static let largestTime = 1e10

    /// A trace from matching times and pressures; the times must increase, lie within
    /// ±``largestTime`` and span at most ``longestDuration``.
    public init(times: [Double], pressures: [Double]) throws(CalibrationError) {
        guard times.count == pressures.count else { throw .mismatchedLengths(pitches: times.count, pressures: pressures.count) }
        guard times.count >= 2 else { throw .tooFewSamples(times.count) }
        for index in times.indices where !(abs(times[index]) <= Self.largestTime) {
            throw .timeOutOfRange(line: index + 1, time: times[index], limit: Self.largestTime)
        }
        for index in 1..<times.count where !(times[index] > times[index - 1]) {
            throw .nonIncreasingTime(line: index + 1, time: times[index], previous: times[index - 1])
        }
        let duration = times[times.count - 1] - times[0]
        guard duration <= Self.longestDuration else { throw .traceTooLong(duration: duration, limit: Self.longestDuration) }
        self.times = times
        self.pressures = pressures
    }

    /// Parses the CSV text. Line numbers in errors count the header as line 1; blank lines are
    /// skipped; `\r\n` line ends are accepted.
    public static func parse(csv text: String) throws(CalibrationError) -> ManometerTrace {
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
        while let last = lines.last, last.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeLast() }
        guard let headerLine = lines.first(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else { throw .empty }
        let header = headerLine.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"\u{FEFF}")).lowercased()
        }
        if header.allSatisfy({ Double($0) != nil }) { throw .missingHeader(found: String(headerLine)) }
        guard let timeColumn = header.firstIndex(of: "time_s") else { throw .missingColumn("time_s") }
        guard let pressureColumn = header.firstIndex(of: "pressure_cmh2o") else { throw .missingColumn("pressure_cmh2o") }
        let headerIndex = lines.firstIndex(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty })!
        var times: [Double] = []
        var pressures: [Double] = []
        times.reserveCapacity(lines.count)
        pressures.reserveCapacity(lines.count)
        for index in (headerIndex + 1)..<lines.count {
            let line = lines[index]
            let number = index + 1
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count > max(timeColumn, pressureColumn) else {
                throw .malformedRow(line: number, reason: "\(fields.count) field\(fields.count == 1 ? "" : "s"), expected at least \(max(timeColumn, pressureColumn) + 1)")
            }
            let timeText = fields[timeColumn].trimmingCharacters(in: .whitespaces)
            let pressureText = fields[pressureColumn].trimmingCharacters(in: .whitespaces)
            guard let time = Double(timeText), time.isFinite else {
                throw .malformedRow(line: number, reason: "time '\(timeText.prefix(30))' is not a number")
            }
            guard abs(time) <= Self.largestTime else { throw .timeOutOfRange(line: number, time: time, limit: Self.largestTime) }
            guard let pressure = Double(pressureText), pressure.isFinite else {
                throw .malformedRow(line: number, reason: "pressure '\(pressureText.prefix(30))' is not a number")
            }
            if let previous = times.last, !(time > previous) {
                throw .nonIncreasingTime(line: number, time: time, previous: previous)
            }
            times.append(time)
            pressures.append(pressure)
        }
        guard !times.isEmpty else { throw .tooFewSamples(0) }
        return try ManometerTrace(times: times, pressures: pressures)
    }

    /// First to last sample time.
    public var timeRange: ClosedRange<Double> { times[0]...times[times.count - 1] }

    /// Median spacing of the samples, in seconds.
    public var sampleInterval: Double {
        var gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        gaps.sort()
        return gaps[gaps.count / 2]
    }

    /// The pressure at `time` by linear interpolation; nil outside the trace or when the samples
    /// either side are more than `maxGap` seconds apart.
    public func pressure(at time: Double, maxGap: Double = 0.1) -> Double? {
        guard time >= times[0], time <= times[times.count - 1] else { return nil }
        var low = 0, high = times.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if times[middle] <= time { low = middle } else { high = middle }
        }
        let t0 = times[low], t1 = times[high]
        if t1 - t0 > maxGap { return nil }
        let fraction = t1 > t0 ? (time - t0) / (t1 - t0) : 0
        return pressures[low] + fraction * (pressures[high] - pressures[low])
    }

    /// The trace smoothed by a centred moving average `window` seconds long (e.g. 0.1 s, whose
    /// nulls at 10, 20, 30 and 40 Hz remove a flutter's oscillation and leave its mean pressure).
    public func smoothed(window: Double) -> ManometerTrace {
        let half = window / 2
        var smoothed = [Double](repeating: 0, count: times.count)
        var low = 0, high = 0
        var sum = 0.0
        for index in times.indices {
            while high < times.count, times[high] <= times[index] + half { sum += pressures[high]; high += 1 }
            while times[low] < times[index] - half { sum -= pressures[low]; low += 1 }
            smoothed[index] = sum / Double(high - low)
        }
        return try! ManometerTrace(times: times, pressures: smoothed)
    }

    /// The same trace with every time moved by `offset` seconds.
    public func shifted(by offset: Double) -> ManometerTrace {
        try! ManometerTrace(times: times.map { $0 + offset }, pressures: pressures)
    }
}
