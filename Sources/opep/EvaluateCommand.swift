import ArgumentParser
import Foundation
import OPEPEvaluation
import OPEPHistory
import OPEPKit

struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Measure the engine's accuracy on a corpus of simulated sessions with ground truth.",
        discussion: """
            For every case: coverage (share of flutter time with a pitch after 0.35 s of settling), \
            median and 90th-percentile pitch error, gross errors (more than 20 % off), false reports \
            (share of time outside exhalations with a pitch) and breaths found against true. \
            Targets: coverage >= 95 %, median error <= 0.15 Hz, gross errors <= 1 %, \
            false reports <= 1 %, every breath counted.
            """
    )

    @Option(help: "Output format.")
    var format: ReportFormat = .text

    @Option(help: "Seed of the corpus's random numbers.")
    var seed: UInt64 = 1

    @Option(help: "Only cases whose name contains this text.")
    var filter: String?

    @Flag(help: "Exit non-zero if any case misses a target.")
    var strict = false

    func validate() throws {
        if format == .csv { throw ValidationError("--format csv is for frames; choose text or json for an evaluation.") }
    }

    func run() throws {
        let cases = Evaluator.standardCorpus(seed: seed).filter { filter.map($0.name.contains) ?? true }
        guard !cases.isEmpty else { throw failure("no case matches --filter \(filter ?? "")") }
        var results: [EvaluationResult] = []
        if format == .text { print(EvaluationTable.header) }
        for evaluationCase in cases {
            let result = try Evaluator.evaluate(evaluationCase)
            results.append(result)
            if format == .text { print(EvaluationTable.row(result)) }
        }
        let passed = results.filter(\.passed).count
        switch format {
        case .json:
            print(try reportJSON(EvaluationOutput(targets: EvaluationTargets(), cases: results, passed: passed), pretty: true))
        default:
            print(EvaluationTable.footer(results))
        }
        if strict, passed < results.count { throw ExitCode.failure }
    }
}

private struct EvaluationOutput: Encodable {
    var targets: EvaluationTargets
    var cases: [EvaluationResult]
    var passed: Int
}

enum EvaluationTable {
    static let header = "case                             secs  cover  med Hz  p90 Hz  gross  false  breaths  sets  result"

    static func row(_ r: EvaluationResult) -> String {
        [
            r.name.padding(toLength: 31, withPad: " ", startingAt: 0),
            fixed(r.duration, 0).leftPad(6),
            percent(r.coverage).leftPad(6),
            (r.medianErrorHz.map { fixed($0, 3) } ?? "-").leftPad(7),
            (r.p90ErrorHz.map { fixed($0, 3) } ?? "-").leftPad(7),
            percent(r.grossErrors).leftPad(6),
            percent(r.falseReports).leftPad(6),
            "\(r.breathsMatched)/\(r.breathsTrue)".leftPad(8),
            "\(r.setsFound)/\(r.setsTrue)".leftPad(5),
            r.passed ? "  ok" : "  MISS: " + r.misses.joined(separator: "; "),
        ].joined(separator: " ")
    }

    static func footer(_ results: [EvaluationResult]) -> String {
        let passed = results.filter(\.passed).count
        return "\(passed) of \(results.count) cases met every target."
    }
}
