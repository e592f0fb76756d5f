import ArgumentParser
import Foundation
import OPEPEvaluation
import OPEPHistory
import OPEPKit
import OPEPSimulation

/// Which corpus `opep evaluate` runs.
enum CorpusChoice: String, ExpressibleByArgument, CaseIterable {
    case named, tuning
    case heldOut = "held-out"
    case all
}

/// Which trackers `opep evaluate` runs: ours, the study's, or both side by side.
enum TrackerChoice: String, ExpressibleByArgument, CaseIterable {
    case continuity, study, both

    var methods: [FlutterPitchTracker.Method] {
        switch self {
        case .continuity: [.continuity]
        case .study: [.study]
        case .both: [.continuity, .study]
        }
    }
}

struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Measure the engine's accuracy on a corpus of simulated sessions with ground truth.",
        discussion: """
            For every case: coverage (share of flutter time with a pitch after 0.35 s of settling), \
            median and 90th-percentile pitch error, gross errors (more than 20 % off), false reports \
            (share of time outside exhalations with a pitch) and breaths found against true. \
            Targets: coverage >= 95 %, median error <= 0.15 Hz, gross errors <= 1 %, \
            false reports <= 1 %, every breath counted. The random corpora (tuning, held-out) draw \
            every session's sound, recording chain and interference from its seed, mix in the real \
            recordings of --real-audio and send some sessions through codecs with ffmpeg; the \
            held-out seeds and recordings must stay out of every tuning decision.
            """
    )

    @Option(help: "The corpus: the named cases, random tuning or held-out sessions, or all three.")
    var corpus: CorpusChoice = .named

    @Option(help: "Random sessions per split (tuning, held-out; default 200).")
    var count: Int?

    @Option(help: "Directory of real recordings laid out like corpus/real-audio (FLAC files and coughs/).")
    var realAudio = "corpus/real-audio"

    @Option(help: "Cases evaluated in parallel (default: the number of cores).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "The pitch tracker: continuity (ours), study (the study's, as published) or both side by side.")
    var tracker: TrackerChoice = .continuity

    @Option(help: "Output format.")
    var format: ReportFormat = .text

    @Option(help: "Seed of the named corpus's random numbers.")
    var seed: UInt64 = 1

    @Option(help: "Only cases whose name contains this text.")
    var filter: String?

    @Option(help: ArgumentHelp("Write each case's audio, as the analysis heard it, to DIR/NAME.wav.", valueName: "DIR"))
    var keep: String?

    @Flag(help: "Breathe every random session without the device: its breaths become exhalations without it and there are no huff coughs (real breath in every session), so every breath and pitch found is false.")
    var withoutDevice = false

    @Flag(help: "Exit non-zero if any case misses a target.")
    var strict = false

    private var randomSplits: [CorpusSplit] {
        switch corpus {
        case .named: []
        case .tuning: [.tuning]
        case .heldOut: [.heldOut]
        case .all: [.tuning, .heldOut]
        }
    }

    func validate() throws {
        if format == .csv { throw ValidationError("--format csv is for frames; choose text or json for an evaluation.") }
        if let count, corpus == .named {
            throw ValidationError("--count \(count) sizes the random corpora; add --corpus tuning, held-out or all.")
        }
        if let count, !(1...1_000_000).contains(count) {
            throw ValidationError("--count must lie in 1...1000000 (got \(count)).")
        }
        if !(1...256).contains(jobs) { throw ValidationError("--jobs must lie in 1...256 (got \(jobs)).") }
        if withoutDevice, corpus == .named || corpus == .all {
            throw ValidationError("--without-device breathes a random corpus without the device; choose --corpus tuning or held-out.")
        }
        if seed != 1, corpus == .tuning || corpus == .heldOut {
            throw ValidationError("--seed varies the named corpus; the random corpora have fixed seeds (see docs/usage.md, opep evaluate).")
        }
    }

    func run() throws {
        var groups: [(name: String, cases: [EvaluationCase])] = []
        if corpus == .named || corpus == .all { groups.append(("named", Evaluator.standardCorpus(seed: seed))) }
        var recordings = RecordingLibrary()
        if !randomSplits.isEmpty {
            guard Evaluator.ffmpegPath != nil else {
                throw failure("ffmpeg is not on the PATH: the random corpora need it for the real recordings and codecs")
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: realAudio, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw failure("--real-audio \(realAudio): no such directory (run from the repository's root or pass --real-audio DIR)")
            }
            recordings = try RecordingLibrary.load(directory: realAudio)
            for split in randomSplits {
                groups.append((
                    split.rawValue + (withoutDevice ? " without the device" : ""),
                    Evaluator.randomCorpus(split: split, count: count ?? 200, recordings: recordings, withoutDevice: withoutDevice)))
            }
        }
        if let keep {
            do {
                try FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
            } catch {
                throw failure("--keep \(keep): cannot create the directory (\(error.localizedDescription))")
            }
        }
        groups = groups.map { ($0.name, $0.cases.filter { c in filter.map(c.name.contains) ?? true }) }.filter { !$0.cases.isEmpty }
        guard !groups.isEmpty else {
            let reach = randomSplits.isEmpty ? "" : " among the first \(count ?? 200) of each random corpus (raise --count to reach a later case)"
            throw failure("no case matches --filter \(filter ?? "")\(reach)")
        }

        let cases = groups.flatMap(\.cases)
        var results: [EvaluationResult] = []
        var summaries: [(name: String, summary: EvaluationSummary)] = []
        for method in tracker.methods {
            if format == .text {
                if tracker == .both { print("\(results.isEmpty ? "" : "\n")tracker: \(method.rawValue)") }
                print(EvaluationTable.header)
            }
            let run = try Evaluator.evaluate(cases, jobs: jobs, tracker: method, recordings: recordings, keepAudioIn: keep) { result in
                if format == .text { print(EvaluationTable.row(result)) }
            }
            var remaining = run[...]
            for group in groups {
                let name = tracker == .both ? "\(method.rawValue) \(group.name)" : group.name
                summaries.append((name, EvaluationSummary(Array(remaining.prefix(group.cases.count)))))
                remaining = remaining.dropFirst(group.cases.count)
            }
            results += run
        }
        let passed = results.filter(\.passed).count
        switch format {
        case .json:
            let output = EvaluationOutput(
                targets: EvaluationTargets(), cases: results, passed: passed,
                summaries: Dictionary(uniqueKeysWithValues: summaries.map { ($0.name, $0.summary) }))
            print(try reportJSON(output, pretty: true))
        default:
            for (name, summary) in summaries where summaries.count > 1 || name != "named" {
                print("")
                print(EvaluationTable.spread(name, summary))
            }
            if tracker == .both {
                print("")
                print(EvaluationTable.sideBySide(summaries))
            }
            print(EvaluationTable.footer(results))
        }
        if strict, passed < results.count { throw ExitCode.failure }
    }
}

private struct EvaluationOutput: Encodable {
    var targets: EvaluationTargets
    var cases: [EvaluationResult]
    var passed: Int
    /// Per corpus (named, tuning, held-out; prefixed by the tracker with `--tracker both`): the
    /// spread of every measure.
    var summaries: [String: EvaluationSummary]
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
            (r.passed ? "  ok" : "  MISS: " + r.misses.joined(separator: "; "))
                + (r.summary.isEmpty ? "" : "  [\(r.summary)]"),
        ].joined(separator: " ")
    }

    /// The exhalations without the device that got a warning, by the first reason given there.
    private static func plainWarnings(_ s: EvaluationSummary) -> String {
        let counts = s.plainExhalationWarnings.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        return counts.isEmpty ? "none" : counts.joined(separator: ", ")
    }

    /// The spread of every measure over one corpus, its worst case and how many met every target.
    static func spread(_ corpus: String, _ s: EvaluationSummary) -> String {
        var lines = [
            "\(corpus): \(s.cases) cases, \(s.passed) met every target, \(s.breathsExact) with every breath exact"
                + (s.worstCase.map { "; worst case \($0)" } ?? ""),
            "  exhalations without the device: \(s.plainExhalations), breaths found in them: \(s.plainExhalationBreaths), "
                + "the gauge showed a pressure in: \(s.plainExhalationGauges) (\(fixed(s.plainExhalationGaugeTime, 1)) s in all), "
                + "warned in: \(plainWarnings(s))",
            "  true breaths reported mostly at twice or half their rate: \(s.breathsAtWrongOctave) of \(s.breathsTrue)",
            "  huff coughs: \(s.huffsTrue) true, \(s.huffsFound) found, \(s.huffsMatched) of them matching a true one",
            "  signal check: \(s.underCoverage) cases under 95 % coverage, a reason given in \(s.underCoverageNamed), for half or more of their unmeasured flutter in \(s.underCoverageMostlyNamed); \(s.underCoverageWithDrawnCause) drew a cause, given in \(s.underCoverageDrawnCauseGiven), \(s.underCoverageCostlyCause) lost their coverage to one, given in \(s.underCoverageCostlyCauseGiven); \(s.metButWarned) of \(s.passed) that met every target warned during a breath, \(s.metButRaised) raised a warning there",
            "  measure          min     p10  median     p90   worst  worst case",
        ]
        func line(_ name: String, _ spread: Spread?, _ format: (Double) -> String, higherIsBetter: Bool) {
            guard let spread else { return lines.append("  \(name.rightPad(12))  (no values)") }
            let values = [spread.minimum, spread.p10, spread.median, spread.p90, higherIsBetter ? spread.minimum : spread.maximum]
            lines.append(
                "  " + name.rightPad(12) + values.map { format($0).leftPad(8) }.joined()
                    + "  " + spread.worstCase + (spread.missing > 0 ? " (\(spread.missing) without a value)" : ""))
        }
        line("coverage", s.coverage, percent, higherIsBetter: true)
        line("median Hz", s.medianErrorHz, { fixed($0, 3) }, higherIsBetter: false)
        line("p90 Hz", s.p90ErrorHz, { fixed($0, 3) }, higherIsBetter: false)
        line("nominal Hz", s.medianNominalErrorHz, { fixed($0, 3) }, higherIsBetter: false)
        line("gross", s.grossErrors, percent, higherIsBetter: false)
        line("octave", s.octaveErrors, percent, higherIsBetter: false)
        line("false", s.falseReports, percent, higherIsBetter: false)
        line("gauge s", s.gaugeDelay, { fixed($0, 2) }, higherIsBetter: false)
        line("gauge false", s.gaugeFalseReports, percent, higherIsBetter: false)
        line("gauge gross", s.gaugeGrossErrors, percent, higherIsBetter: false)
        line("start s", s.startError, { fixed($0, 2) }, higherIsBetter: false)
        line("start worst", s.worstStartError, { fixed($0, 2) }, higherIsBetter: false)
        return lines.joined(separator: "\n")
    }

    /// One line per tracker and corpus: cases passed, breaths exact, and each measure's median and
    /// worst value.
    static func sideBySide(_ summaries: [(name: String, summary: EvaluationSummary)]) -> String {
        var lines = ["tracker and corpus       passed   exact   coverage med/worst   median Hz med/worst   gross med/worst   false med/worst"]
        for (name, s) in summaries {
            func pair(_ spread: Spread?, _ format: (Double) -> String, higherIsBetter: Bool) -> String {
                guard let spread else { return "-" }
                return format(spread.median) + " / " + format(higherIsBetter ? spread.minimum : spread.maximum)
            }
            lines.append(
                name.rightPad(22) + "\(s.passed)/\(s.cases)".leftPad(9) + "\(s.breathsExact)/\(s.cases)".leftPad(8)
                    + pair(s.coverage, percent, higherIsBetter: true).leftPad(21)
                    + pair(s.medianErrorHz, { fixed($0, 3) }, higherIsBetter: false).leftPad(22)
                    + pair(s.grossErrors, percent, higherIsBetter: false).leftPad(18)
                    + pair(s.falseReports, percent, higherIsBetter: false).leftPad(18))
        }
        return lines.joined(separator: "\n")
    }

    static func footer(_ results: [EvaluationResult]) -> String {
        let passed = results.filter(\.passed).count
        return "\(passed) of \(results.count) cases met every target."
    }
}
