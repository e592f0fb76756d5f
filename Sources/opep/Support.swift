import ArgumentParser
import Foundation

/// How a command writes its result.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, csv
}

/// An error that ends a command with one line on standard error and a non-zero exit.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
}

func failure(_ message: String) -> CommandFailure {
    CommandFailure(description: message)
}

/// Writes one line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data(("opep: " + line + "\n").utf8))
}

/// "1 breath", "2 breaths".
func plural(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}

func fixed(_ value: Double, _ digits: Int) -> String {
    String(format: "%.\(digits)f", value)
}

func percent(_ value: Double) -> String {
    String(format: "%.1f%%", value * 100)
}

extension String {
    func leftPad(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }

    func rightPad(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

/// The `q` quantile of `values` (the nearest rank), NaN when there are none: the benchmarks' and
/// the load client's p50, p90, p99.
func quantile(_ values: [Double], _ q: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))]
}
