import Foundation
import OPEPKit
import OPEPSimulation

extension Evaluator {
    /// The full path of ffmpeg, which the real recordings and the codecs of the random corpus need;
    /// nil when it is not on the PATH.
    public static var ffmpegPath: String? { CodecRoundTrip.ffmpeg }

    /// Evaluates `cases` on `jobs` threads with the pitch tracker's `tracker` method and returns their results in case order. `onResult` runs
    /// on the calling thread, in case order, as soon as each case and every earlier one are done.
    /// With `keepAudioIn`, each case's audio is written there as `NAME.wav`. The first error in case
    /// order is thrown; no further cases are started after any error.
    public static func evaluate(
        _ cases: [EvaluationCase], jobs: Int, targets: EvaluationTargets = .init(), tracker: FlutterPitchTracker.Method = .continuity,
        recordings: RecordingLibrary = RecordingLibrary(), keepAudioIn directory: String? = nil, onResult: (EvaluationResult) -> Void = { _ in }
    ) throws -> [EvaluationResult] {
        let board = Outcomes(count: cases.count)
        for _ in 0..<max(1, min(jobs, cases.count)) {
            Thread.detachNewThread {
                let configure = { (configuration: inout SessionAnalyzer.Configuration) in
                    configuration.tracker = .init(sampleRate: configuration.sampleRate, device: configuration.device, method: tracker)
                }
                while let index = board.claim() {
                    board.store(Result {
                        var result = try evaluate(cases[index], targets: targets, configure: configure, recordings: recordings, keepAudioIn: directory)
                        result.costlyCauses = try costlyCauses(of: cases[index], result: result, targets: targets, configure: configure, recordings: recordings)
                        return result
                    }, at: index)
                }
            }
        }
        var results: [EvaluationResult] = []
        results.reserveCapacity(cases.count)
        for index in cases.indices {
            let result = try board.wait(for: index).get()
            onResult(result)
            results.append(result)
        }
        return results
    }
}

extension Evaluator {
    /// The drawn causes that cost `result` its coverage, each found by evaluating the case again
    /// without it (``EvaluationResult/costlyCauses``).
    static func costlyCauses(
        of evaluationCase: EvaluationCase, result: EvaluationResult, targets: EvaluationTargets,
        configure: (inout SessionAnalyzer.Configuration) -> Void, recordings: RecordingLibrary
    ) throws -> [SignalProblem] {
        guard result.coverage < targets.coverage else { return [] }
        let needed = DrawnCauses.recoveredShare * (targets.coverage - result.coverage)
        return try result.drawnCauses.filter { cause in
            var without = evaluationCase
            without.simulation = DrawnCauses.removing(cause, from: evaluationCase.simulation)
            let coverage = try evaluate(without, targets: targets, configure: configure, recordings: recordings).coverage
            return coverage - result.coverage >= needed
        }
    }
}

/// The outcomes of cases evaluated on several threads.
private final class Outcomes: @unchecked Sendable {
    private let condition = NSCondition()
    private var outcomes: [Result<EvaluationResult, any Error>?]
    private var next = 0
    private var failed = false

    init(count: Int) {
        outcomes = Array(repeating: nil, count: count)
    }

    /// The next case to evaluate; nil when all are taken or one failed.
    func claim() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        guard next < outcomes.count, !failed else { return nil }
        next += 1
        return next - 1
    }

    func store(_ outcome: Result<EvaluationResult, any Error>, at index: Int) {
        condition.lock()
        outcomes[index] = outcome
        if case .failure = outcome { failed = true }
        condition.broadcast()
        condition.unlock()
    }

    /// The outcome of case `index`, once there is one; a failure if a case failed before it was started.
    func wait(for index: Int) -> Result<EvaluationResult, any Error> {
        condition.lock()
        defer { condition.unlock() }
        while outcomes[index] == nil {
            if failed, index >= next, let failure = outcomes.lazy.compactMap({ $0 }).first(where: { if case .failure = $0 { true } else { false } }) {
                return failure
            }
            condition.wait()
        }
        return outcomes[index]!
    }
}
