import Foundation
import OPEPAudio
import OPEPKit
import OPEPSimulation

/// The accuracy targets a case must reach.
public struct EvaluationTargets: Sendable, Hashable, Codable {
    /// Least share of flutter time (after settling) with a pitch.
    public var coverage = 0.95
    /// Largest median pitch error, in Hz.
    public var medianErrorHz = 0.15
    /// Largest share of pitches more than 20 % off.
    public var grossErrors = 0.01
    /// Largest share of time outside exhalations with a pitch.
    public var falseReports = 0.01
    /// Time after the flutter starts before coverage is counted, in seconds.
    public var settling = 0.35
    /// Window over which the rocker's realised rate is counted for each frame, in seconds: the
    /// tracker's analysis span (2.5 periods of the 10 Hz band floor).
    public var realisedWindow = 0.25

    public init() {}
}

/// One simulated session to evaluate against.
public struct EvaluationCase: Sendable, Hashable, Codable {
    public var name: String
    public var simulation: SimulationConfiguration

    public init(name: String, simulation: SimulationConfiguration) {
        self.name = name
        self.simulation = simulation
    }
}

/// How the engine did on one case.
public struct EvaluationResult: Sendable, Hashable, Codable {
    public var name: String
    public var sampleRate: Double
    public var noise: String
    public var noiseLevelDB: Double
    /// What was drawn for a random case (rate, interference, level, chain), in a few words; empty
    /// for the named cases.
    public var summary: String
    /// Seconds of audio analysed.
    public var duration: Double
    /// Share of flutter frames (after settling) with a pitch; 0 in a session without the device,
    /// where neither it nor the pitch error is a target.
    public var coverage: Double
    /// Median and 90th percentile of |pitch error| in Hz over flutter frames with a pitch, against
    /// the rocker's realised rate over the frame's analysis window (``RealisedPitch``).
    public var medianErrorHz: Double?
    public var p90ErrorHz: Double?
    /// Median |pitch error| in Hz against the smooth nominal contour the period jitter scatters
    /// around (the same as the realised rate without jitter).
    public var medianNominalErrorHz: Double?
    /// Median |pressure error| in cmH2O (the device line applied to both).
    public var medianPressureError: Double?
    /// Share of pitches more than 20 % off.
    public var grossErrors: Double
    /// Share of pitches at twice or half the rocker's realised rate (within
    /// ``FrameScore/octaveTolerance``): the gross errors a flutter with two pulses per cycle, or
    /// every other pulse weaker, makes.
    public var octaveErrors: Double = 0
    /// True breaths more than half of whose scored pitches are octave errors: a breath whose
    /// pressure is reported far off (twice a 10 Hz flutter reads 11 cmH2O high, half a 30 Hz one
    /// 17 cmH2O low).
    public var breathsAtWrongOctave: Int = 0
    /// Share of frames outside true exhalations that had a pitch.
    public var falseReports: Double
    /// Median over the breaths heard of the time from the flutter's start to the first live
    /// frame with a pitch, as the gauge would show it (including the tracker's latency), in seconds.
    public var gaugeDelay: Double?
    /// Share of live frames outside true exhalations in which the gauge showed a pitch.
    public var gaugeFalseReports: Double = 0
    /// Share of the gauge's pitches during the flutter more than 20 % off the nominal contour.
    public var gaugeGrossErrors: Double = 0
    public var breathsTrue: Int
    public var breathsFound: Int
    /// Found breaths that overlap a true breath one-to-one.
    public var breathsMatched: Int
    /// Median and largest |start of a found breath − start of the true breath it matched| over the
    /// matched breaths, in seconds (nil without any): how well the breaths' starts follow the
    /// exhalations' own sound, whenever the tracker first hears the flutter.
    public var medianStartError: Double?
    public var worstStartError: Double?
    /// Start times (s) of true breaths no found breath matched.
    public var missedBreaths: [Double]
    /// Start times (s) of found breaths that match no true breath.
    public var extraBreaths: [Double]
    /// Exhalations without the device in the session, and found breaths overlapping one.
    public var plainExhalations: Int
    public var plainExhalationBreaths: Int
    /// Exhalations without the device during which the signal check warned, by the first reason
    /// it gave there (``SignalProblem/noFlutter`` tells the patient to breathe out through the
    /// device).
    public var plainExhalationWarnings: [String: Int] = [:]
    /// Exhalations without the device in which the live gauge showed a pressure, and the seconds
    /// it showed one there in all: no breath is counted in them, but a patient sees the gauge.
    public var plainExhalationGauges = 0
    public var plainExhalationGaugeTime = 0.0
    public var setsTrue: Int
    public var setsFound: Int
    /// Huff coughs: the session's, those the analysis reported, and those matched one-to-one with
    /// a true one they overlap.
    public var huffsTrue = 0
    public var huffsFound = 0
    public var huffsMatched = 0
    /// Start times (s) of the true huff coughs left unmatched, and of the reported ones that match
    /// none.
    public var missedHuffs: [Double] = []
    public var extraHuffs: [Double] = []
    /// The scored flutter time (the frames of ``coverage``) without a pitch, and the seconds of it
    /// for which the signal check gave each reason.
    public var unmeasuredFlutter = UnmeasuredTime()
    /// Seconds of the scored flutter time in which the signal check warned, by the reason given.
    public var warningsDuringFlutter: [String: Double] = [:]
    /// Seconds outside true exhalations in which the signal check warned, by the reason given.
    public var warningsOutside: [String: Double] = [:]
    /// Warnings the check raised (a warning appearing, or changing its reason) within the scored
    /// flutter time, by the reason: unlike ``warningsDuringFlutter``, a warning raised by a sound
    /// before the breath and still held at its start does not count.
    public var warningsRaisedDuringFlutter: [String: Int] = [:]
    /// The causes of lost coverage the simulation drew (``DrawnCauses``).
    public var drawnCauses: [SignalProblem] = []
    /// For a case under its coverage target, the drawn causes that cost it: those whose removal
    /// alone (``DrawnCauses/removing(_:from:)``) wins back at least half of what it lacks
    /// (``DrawnCauses/recoveredShare``); empty otherwise.
    public var costlyCauses: [SignalProblem] = []
    /// The targets this case missed, in words; empty when it met them all.
    public var misses: [String]
    public var passed: Bool { misses.isEmpty }
}

/// Runs simulated sessions through the analysis and compares every frame with the ground truth.
public enum Evaluator {
    private static func writeTruth(_ truth: GroundTruth, realised: RealisedPitch, window: Double, to path: String) throws {
        let format = { (pitch: Double?) in pitch.map { String(format: "%.3f", $0) } ?? "" }
        var text = "time_s,pitch_hz,realised_hz\n"
        for step in 0...Int(truth.duration * 100) {
            let time = Double(step) / 100
            text += "\(time),\(format(truth.pitch(at: time))),\(format(realised.pitch(at: time, window: window)))\n"
        }
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw AudioInputError.unwritable(path: path, reason: error.localizedDescription)
        }
    }

    /// Simulates `evaluationCase` (with the real recordings its variation mixes in, and through its
    /// codec with ffmpeg), analyses it in chunks of `chunkLength` samples and scores it. With
    /// `keepAudioIn`, the audio the analysis heard is also written there as `NAME.wav` (32-bit float),
    /// with the true pitch every 10 ms in `NAME.truth.csv` (`time_s,pitch_hz,realised_hz`: the nominal
    /// contour and the rocker's realised rate over ``EvaluationTargets/realisedWindow``, empty
    /// outside flutter).
    public static func evaluate(
        _ evaluationCase: EvaluationCase, targets: EvaluationTargets = .init(),
        configure: (inout SessionAnalyzer.Configuration) -> Void = { _ in }, chunkLength: Int = 4096,
        recordings: RecordingLibrary = RecordingLibrary(), keepAudioIn directory: String? = nil
    ) throws -> EvaluationResult {
        var simulator = try SessionSimulator(configuration: evaluationCase.simulation, recordings: recordings)
        let truth = simulator.groundTruth
        var configuration = SessionAnalyzer.Configuration(
            sampleRate: evaluationCase.simulation.sampleRate, device: evaluationCase.simulation.device)
        configure(&configuration)
        var run = try AnalysisRun(configuration: configuration)
        var score = FrameScore(
            truth: truth, settling: targets.settling, window: targets.realisedWindow, frameInterval: run.frameInterval)
        var buffer: [Float] = []
        buffer.reserveCapacity(chunkLength)
        let collect: (SessionOutput) -> Void = { output in
            switch output {
            case let .frame(frame): score.add(frame)
            case let .live(frame): score.addLive(frame)
            default: break
            }
        }
        let trackerLatency = try FlutterPitchTracker(configuration: configuration.tracker).latency
        let writer = try directory.map { directory in
            try WAVWriter(
                path: (directory as NSString).appendingPathComponent(evaluationCase.name + ".wav"),
                sampleRate: Int(evaluationCase.simulation.sampleRate.rounded()), encoding: .float32)
        }
        var coded: [Float]?
        if let codec = evaluationCase.simulation.variation?.chain.codec {
            var audio: [Float] = []
            audio.reserveCapacity(simulator.totalFrames)
            while simulator.render(into: &buffer, maxFrames: chunkLength) > 0 {
                audio.append(contentsOf: buffer)
            }
            coded = try CodecRoundTrip.process(audio, codec: codec, sampleRate: evaluationCase.simulation.sampleRate)
        }
        var codedRead = 0
        let report = try run.run(reading: { chunk in
            let count: Int
            if let coded {
                count = min(chunkLength, coded.count - codedRead)
                chunk.removeAll(keepingCapacity: true)
                chunk.append(contentsOf: coded[codedRead..<codedRead + count])
                codedRead += count
            } else {
                count = simulator.render(into: &chunk, maxFrames: chunkLength)
            }
            if count > 0 { try writer?.write(chunk) }
            return count
        }, onOutput: collect)
        try writer?.finish()
        if let directory {
            try writeTruth(truth, realised: score.realised, window: targets.realisedWindow, to: (directory as NSString).appendingPathComponent(evaluationCase.name + ".truth.csv"))
        }
        let matching = match(found: report.breaths, truth: truth.breaths)
        var result = EvaluationResult(
            name: evaluationCase.name, sampleRate: evaluationCase.simulation.sampleRate,
            noise: evaluationCase.simulation.noiseKind.rawValue, noiseLevelDB: evaluationCase.simulation.noiseLevelDB,
            summary: evaluationCase.simulation.variation == nil ? "" : evaluationCase.simulation.summary,
            duration: truth.duration, coverage: score.coverage, medianErrorHz: quantile(score.errors, 0.5),
            p90ErrorHz: quantile(score.errors, 0.9), medianNominalErrorHz: quantile(score.nominalErrors, 0.5),
            medianPressureError: quantile(score.errors, 0.5).map { $0 * abs(truth.configuration.device.slopeCmH2OPerHz) },
            grossErrors: score.grossShare, falseReports: score.falseReportShare,
            gaugeDelay: quantile(score.gaugeDelays, 0.5).map { $0 + trackerLatency },
            gaugeFalseReports: score.gaugeFalseReportShare, gaugeGrossErrors: score.gaugeGrossShare,
            breathsTrue: truth.breaths.count, breathsFound: report.breaths.count, breathsMatched: matching.pairs,
            missedBreaths: matching.missed, extraBreaths: matching.extra,
            plainExhalations: truth.plainExhalations.count,
            plainExhalationBreaths: report.breaths.filter { b in truth.plainExhalations.contains { $0.start < b.end && b.start < $0.end } }.count,
            setsTrue: Set(truth.breaths.map(\.set)).count, setsFound: report.sets.count,
            unmeasuredFlutter: score.unmeasuredFlutter, warningsDuringFlutter: score.warningsDuringFlutter, warningsOutside: score.warningsOutside,
            warningsRaisedDuringFlutter: score.warningsRaisedDuringFlutter, drawnCauses: DrawnCauses.of(evaluationCase.simulation), misses: [])
        let huffs = run.events.filter { $0.kind == .huffCough }.map { (start: $0.time, end: $0.time + ($0.duration ?? 0)) }
        let startErrors = matching.startDifferences.map(abs)
        result.medianStartError = quantile(startErrors, 0.5)
        result.worstStartError = startErrors.max()
        result.huffsTrue = truth.huffs.count
        result.huffsFound = huffs.count
        let huffMatching = matchSpans(found: huffs, truth: truth.huffs.map { (start: $0.start, end: $0.end) })
        result.huffsMatched = huffMatching.pairs
        result.missedHuffs = huffMatching.missed
        result.extraHuffs = huffMatching.extra
        result.plainExhalationWarnings = score.plainExhalationWarnings
        result.plainExhalationGauges = score.plainGaugeTimes.filter { $0 > 0 }.count
        result.plainExhalationGaugeTime = score.plainGaugeTimes.reduce(0, +)
        result.octaveErrors = score.octaveShare
        result.breathsAtWrongOctave = score.breathsAtWrongOctave
        result.misses = misses(result, targets: targets)
        return result
    }

    /// The standard corpus: every interference kind, the sample rates a phone, a laptop and
    /// AirPods record at, quiet and loud interference, low and high pressures.
    public static func standardCorpus(seed: UInt64 = 1) -> [EvaluationCase] {
        var cases: [EvaluationCase] = []
        func add(_ name: String, _ build: (inout SimulationConfiguration) -> Void) {
            var configuration = SimulationConfiguration(seed: seed &+ UInt64(cases.count))
            build(&configuration)
            cases.append(EvaluationCase(name: name, simulation: configuration))
        }
        for kind in NoiseKind.allCases {
            add("\(kind.rawValue) -25 dB, 44.1 kHz") { $0.noiseKind = kind }
        }
        for kind in [NoiseKind.room, .fan, .speech, .music, .mixed] {
            add("\(kind.rawValue) -15 dB, 44.1 kHz") { $0.noiseKind = kind; $0.noiseLevelDB = -15 }
        }
        for rate in [8000.0, 16000, 22050, 48000, 96000] {
            add("room -25 dB, \(rate / 1000) kHz") { $0.sampleRate = rate; $0.sets = 1 }
        }
        add("soft breaths 8-12 cmH2O") { $0.pressureRange = 8...12; $0.sets = 1 }
        add("hard breaths 18-35 cmH2O") { $0.pressureRange = 18...35; $0.sets = 1 }
        add("shallow flutter, depth 0.5") { $0.modulationDepth = 0.5; $0.sets = 1 }
        add("AirPods 16 kHz, speech -20 dB") { $0.sampleRate = 16000; $0.noiseKind = .speech; $0.noiseLevelDB = -20; $0.sets = 1 }
        return cases
    }

    /// Seeds of the random corpus: tuning case `i` uses `tuningSeeds.lowerBound + i`, held-out
    /// case `i` uses `heldOutSeeds.lowerBound + i`. The ranges are disjoint, so no held-out session
    /// ever served a tuning decision.
    public static let tuningSeeds: Range<UInt64> = 1_000_000..<2_000_000
    public static let heldOutSeeds: Range<UInt64> = 9_000_000..<10_000_000

    /// `count` random sessions (``SimulationConfiguration/random(seed:recordings:)``) of `split`,
    /// named `tuning-0017` or `held-out-0003`, mixing in only the real recordings of `recordings`
    /// that belong to `split`. With `withoutDevice`, each session breathed without the device
    /// (``SimulationConfiguration/breathedWithoutDevice()``), named `tuning-0017-no-device`.
    public static func randomCorpus(
        split: CorpusSplit, count: Int, recordings: RecordingLibrary = RecordingLibrary(), withoutDevice: Bool = false
    ) -> [EvaluationCase] {
        let seeds = split == .tuning ? tuningSeeds : heldOutSeeds
        let names = recordings.names(in: split)
        return (0..<min(max(count, 0), seeds.count)).map { i in
            let seed = seeds.lowerBound + UInt64(i)
            let session = SimulationConfiguration.random(seed: seed, recordings: names)
            return EvaluationCase(
                name: split.rawValue + "-" + String(format: "%04d", i) + (withoutDevice ? "-no-device" : ""),
                simulation: withoutDevice ? session.breathedWithoutDevice() : session)
        }
    }

    private static func misses(_ r: EvaluationResult, targets: EvaluationTargets) -> [String] {
        var misses: [String] = []
        if r.breathsTrue > 0, r.coverage < targets.coverage { misses.append("coverage \(percent(r.coverage)) < \(percent(targets.coverage))") }
        if r.breathsTrue > 0, (r.medianErrorHz ?? .infinity) > targets.medianErrorHz { misses.append("median error \(r.medianErrorHz.map { String($0) } ?? "none") Hz > \(targets.medianErrorHz) Hz") }
        if r.grossErrors > targets.grossErrors { misses.append("gross errors \(percent(r.grossErrors)) > \(percent(targets.grossErrors))") }
        if r.falseReports > targets.falseReports { misses.append("false reports \(percent(r.falseReports)) > \(percent(targets.falseReports))") }
        if r.breathsFound != r.breathsTrue || r.breathsMatched != r.breathsTrue {
            let missed = r.missedBreaths.map { "\(Int($0.rounded())) s" }.joined(separator: ", ")
            let extra = r.extraBreaths.map { "\(Int($0.rounded())) s" }.joined(separator: ", ")
            misses.append("breaths \(r.breathsMatched) matched, \(r.breathsFound) found of \(r.breathsTrue)"
                + (missed.isEmpty ? "" : " (missed at \(missed))") + (extra.isEmpty ? "" : " (extra at \(extra))"))
        }
        if r.setsFound != r.setsTrue { misses.append("sets \(r.setsFound) found of \(r.setsTrue)") }
        return misses
    }

    private static func percent(_ x: Double) -> String {
        let scaled = (x * 1000).rounded() / 10
        return "\(scaled) %"
    }

    /// Breaths matched one-to-one with true breaths they overlap, in time order, with the start
    /// times of the true breaths left unmatched and of the found ones that match nothing, and each
    /// pair's found start less its true start.
    static func match(
        found: [Breath], truth: [TrueBreath]
    ) -> (pairs: Int, missed: [Double], extra: [Double], startDifferences: [Double]) {
        matchSpans(found: found.map { (start: $0.start, end: $0.end) }, truth: truth.map { (start: $0.start, end: $0.end) })
    }

    /// Found spans of time (breaths, huff coughs) matched one-to-one with true ones they overlap,
    /// both in time order, with the starts of the true ones left unmatched and of the found ones
    /// that match nothing, and each pair's found start less its true start.
    static func matchSpans(
        found: [(start: Double, end: Double)], truth: [(start: Double, end: Double)]
    ) -> (pairs: Int, missed: [Double], extra: [Double], startDifferences: [Double]) {
        var pairs = 0
        var startDifferences: [Double] = []
        var matchedTruth = Set<Int>()
        var extra: [Double] = []
        var next = 0
        for breath in found {
            while next < truth.count, truth[next].end < breath.start { next += 1 }
            guard next < truth.count, truth[next].start < breath.end else {
                extra.append(breath.start)
                continue
            }
            pairs += 1
            startDifferences.append(breath.start - truth[next].start)
            matchedTruth.insert(next)
            next += 1
        }
        let missed = truth.indices.filter { !matchedTruth.contains($0) }.map { truth[$0].start }
        return (pairs, missed, extra, startDifferences)
    }
}

/// Frame-by-frame comparison with the ground truth.
struct FrameScore {
    let truth: GroundTruth
    /// Seconds per frame.
    let frameInterval: Double
    let settling: Double
    let window: Double
    let realised: RealisedPitch
    /// Against the realised rate, and against the nominal contour.
    private(set) var errors: [Double] = []
    private(set) var nominalErrors: [Double] = []
    private var flutterFrames = 0
    private var gross = 0
    /// Per true breath, by its index: its scored pitches, and those at the wrong octave.
    private var breathOctaves: [Int: (pitches: Int, octave: Int)] = [:]
    private var outsideFrames = 0
    private var outsideWithPitch = 0
    /// The signal check during the scored flutter and outside (see ``EvaluationResult``).
    private(set) var unmeasuredFlutter = UnmeasuredTime()
    private(set) var warningsDuringFlutter: [String: Double] = [:]
    private(set) var warningsOutside: [String: Double] = [:]
    private(set) var warningsRaisedDuringFlutter: [String: Int] = [:]
    private var lastWarning: SignalProblem?
    /// The first warning standing in each exhalation without the device.
    private var plainWarnings: [SignalProblem?]
    /// The seconds the live gauge showed a pressure in each exhalation without the device.
    private(set) var plainGaugeTimes: [Double]
    /// Per breath heard live: its first pitched live frame's time less the flutter's start.
    private(set) var gaugeDelays: [Double] = []
    private var lastHeardFlutterStart: Double?
    private var liveOutside = 0
    private var liveOutsideWithPitch = 0
    private var gaugePitches = 0
    private var gaugeGross = 0

    /// An error above this share of the true pitch is a gross one (20 %).
    static let grossErrorShare = 0.2
    /// A pitch within this share of twice or half the true pitch is an octave error (12 %, the
    /// tracker's consistency: such a pitch is a track on the wrong multiple of the period).
    static let octaveTolerance = 0.12

    /// Whether `pitch` lies at twice or half `truePitch`.
    static func isOctaveError(_ pitch: Double, truePitch: Double) -> Bool {
        abs(pitch - 2 * truePitch) <= octaveTolerance * 2 * truePitch
            || abs(pitch - truePitch / 2) <= octaveTolerance * truePitch / 2
    }

    init(truth: GroundTruth, settling: Double, window: Double, frameInterval: Double) {
        self.truth = truth
        self.frameInterval = frameInterval
        self.settling = settling
        self.window = window
        realised = RealisedPitch(truth: truth)
        plainWarnings = Array(repeating: nil, count: truth.plainExhalations.count)
        plainGaugeTimes = Array(repeating: 0, count: truth.plainExhalations.count)
    }

    /// The exhalation without the device going on at `time`, by its index.
    private func plainExhalation(at time: Double) -> Int? {
        truth.plainExhalations.firstIndex { $0.start <= time && time < $0.end }
    }

    /// How many exhalations without the device got a warning, by the first one given there.
    var plainExhalationWarnings: [String: Int] {
        plainWarnings.reduce(into: [:]) { counts, warning in
            if let warning { counts[warning.rawValue, default: 0] += 1 }
        }
    }

    mutating func add(_ frame: SessionFrame) {
        let raised = frame.warning != nil && frame.warning != lastWarning
        lastWarning = frame.warning
        guard let breath = truth.breath(at: frame.time) else {
            outsideFrames += 1
            if frame.pitch != nil { outsideWithPitch += 1 }
            if let warning = frame.warning {
                warningsOutside[warning.rawValue, default: 0] += frameInterval
                if let plain = plainExhalation(at: frame.time), plainWarnings[plain] == nil {
                    plainWarnings[plain] = warning
                }
            }
            return
        }
        guard frame.time >= breath.flutterStart + settling, let nominal = truth.pitch(at: frame.time),
            let truePitch = realised.pitch(at: frame.time, window: window)
        else { return }
        flutterFrames += 1
        if let warning = frame.warning {
            warningsDuringFlutter[warning.rawValue, default: 0] += frameInterval
            if raised { warningsRaisedDuringFlutter[warning.rawValue, default: 0] += 1 }
        }
        if frame.pitch == nil { unmeasuredFlutter.add(frameInterval, reason: frame.signal) }
        guard let pitch = frame.pitch else { return }
        let error = abs(pitch - truePitch)
        errors.append(error)
        nominalErrors.append(abs(pitch - nominal))
        if error > Self.grossErrorShare * truePitch { gross += 1 }
        let wrongOctave = Self.isOctaveError(pitch, truePitch: truePitch) ? 1 : 0
        breathOctaves[breath.index, default: (0, 0)].pitches += 1
        breathOctaves[breath.index, default: (0, 0)].octave += wrongOctave
    }

    mutating func addLive(_ frame: SessionFrame) {
        guard let breath = truth.breath(at: frame.time) else {
            liveOutside += 1
            guard frame.pitch != nil else { return }
            liveOutsideWithPitch += 1
            if let plain = plainExhalation(at: frame.time) { plainGaugeTimes[plain] += frameInterval }
            return
        }
        guard let pitch = frame.pitch, frame.time >= breath.flutterStart else { return }
        if let nominal = truth.pitch(at: frame.time) {
            gaugePitches += 1
            if abs(pitch - nominal) > Self.grossErrorShare * nominal { gaugeGross += 1 }
        }
        guard breath.flutterStart != lastHeardFlutterStart else { return }
        lastHeardFlutterStart = breath.flutterStart
        gaugeDelays.append(frame.time - breath.flutterStart)
    }

    var coverage: Double { flutterFrames > 0 ? Double(errors.count) / Double(flutterFrames) : 0 }
    var grossShare: Double { errors.isEmpty ? 0 : Double(gross) / Double(errors.count) }
    var octaveShare: Double {
        errors.isEmpty ? 0 : Double(breathOctaves.values.reduce(0) { $0 + $1.octave }) / Double(errors.count)
    }
    var breathsAtWrongOctave: Int { breathOctaves.values.filter { 2 * $0.octave > $0.pitches }.count }
    var falseReportShare: Double { outsideFrames > 0 ? Double(outsideWithPitch) / Double(outsideFrames) : 0 }
    var gaugeFalseReportShare: Double { liveOutside > 0 ? Double(liveOutsideWithPitch) / Double(liveOutside) : 0 }
    var gaugeGrossShare: Double { gaugePitches > 0 ? Double(gaugeGross) / Double(gaugePitches) : 0 }
}

/// The p-quantile (0-1) of values by nearest rank; nil when there are none.
func quantile(_ values: [Double], _ p: Double) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let rank = Int((p * Double(sorted.count)).rounded(.up))
    return sorted[min(sorted.count - 1, max(0, rank - 1))]
}
