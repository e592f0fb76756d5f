import XCTest
@testable import OPEPEvaluation
@testable import OPEPKit
@testable import OPEPSimulation

final class DrawnCausesTests: XCTestCase {
    func testTheNominalSessionDrawsNoCause() {
        XCTAssertEqual(DrawnCauses.of(SimulationConfiguration()), [])
        XCTAssertEqual(DrawnCauses.of(SimulationConfiguration(modulationDepth: 0.5)), [], "nominal sessions have no echo")
        XCTAssertEqual(DrawnCauses.of(SimulationConfiguration(sampleRate: 8000)), [.bandLimited])
        XCTAssertEqual(DrawnCauses.of(SimulationConfiguration(noiseLevelDB: -15)), [.tooNoisy])
        XCTAssertEqual(DrawnCauses.of(SimulationConfiguration(noiseLevelDB: -16)), [])
    }

    func testEachChainParameterPastItsLimitDrawsItsCause() {
        func causes(_ change: (inout RecordingChain) -> Void, depth: Double = 0.85, recording: RecordedInterference? = nil) -> [SignalProblem] {
            var chain = RecordingChain()
            change(&chain)
            let variation = SessionVariation(sound: SoundVariation(), chain: chain, recording: recording)
            return DrawnCauses.of(SimulationConfiguration(noiseLevelDB: -40, modulationDepth: depth, variation: variation))
        }
        XCTAssertEqual(causes { _ in }, [])
        XCTAssertEqual(causes { $0.clipHeadroomDB = 10 }, [.clipped])
        XCTAssertEqual(causes { $0.gainControl = AutomaticGainControl(targetDBFS: -20, attack: 0.1, release: 1, maxGainDB: 20) }, [.gainControl])
        XCTAssertEqual(causes { $0.codec = .telephone }, [.bandLimited])
        XCTAssertEqual(causes { $0.codec = .opus(bitrate: 12000) }, [])
        XCTAssertEqual(causes { $0.levelDB = -26; $0.roomToneDBFS = -60 }, [.tooQuiet], "a breath at -46 dBFS over a room at -60")
        XCTAssertEqual(causes { $0.levelDB = -24; $0.roomToneDBFS = -60 }, [])
        XCTAssertEqual(causes { $0.levelDB = -20; $0.bitDepth = 8 }, [.tooQuiet], "a breath at -40 dBFS over 8-bit steps at -53")
        XCTAssertEqual(causes { $0.levelDB = -20; $0.bitDepth = 16 }, [])
        XCTAssertEqual(causes({ $0.directToReverberantDB = 0 }, depth: 0.5), [.tooFar], "half the energy is echo: depth 0.25")
        XCTAssertEqual(causes({ $0.directToReverberantDB = 0 }, depth: 0.7), [])
        let speech = RecordedInterference(files: ["speech.flac"], bursts: false, levelDB: -10)
        XCTAssertEqual(causes({ _ in }, recording: speech), [.tooNoisy], "a real recording replaces the synthetic noise")
        let coughs = RecordedInterference(files: ["coughs/a.flac"], bursts: true, levelDB: 0)
        XCTAssertEqual(causes({ _ in }, recording: coughs), [], "coughs play between breaths")
    }

    func testTheSummaryCountsTheCasesWhoseDrawnCauseWasGiven() {
        func result(_ name: String, coverage: Double, drawn: [SignalProblem], given: [SignalProblem: Double]) -> EvaluationResult {
            var unmeasured = UnmeasuredTime()
            unmeasured.add(1, reason: nil)
            for (problem, seconds) in given { unmeasured.add(seconds, reason: problem) }
            return EvaluationResult(
                name: name, sampleRate: 16000, noise: "room", noiseLevelDB: -25, summary: "", duration: 30, coverage: coverage,
                grossErrors: 0, falseReports: 0, breathsTrue: 3, breathsFound: 3, breathsMatched: 3, missedBreaths: [],
                extraBreaths: [], plainExhalations: 0, plainExhalationBreaths: 0, setsTrue: 1, setsFound: 1,
                unmeasuredFlutter: unmeasured, drawnCauses: drawn, misses: coverage < 0.95 ? ["coverage"] : [])
        }
        let summary = EvaluationSummary([
            result("given", coverage: 0.8, drawn: [.clipped, .gainControl], given: [.gainControl: 2]),
            result("other reason", coverage: 0.8, drawn: [.clipped], given: [.tooFar: 2]),
            result("nothing drawn", coverage: 0.8, drawn: [], given: [.tooFar: 2]),
            result("unnamed", coverage: 0.9, drawn: [.tooNoisy], given: [:]),
            result("met", coverage: 0.99, drawn: [.tooNoisy], given: [:]),
            { var r = result("met, warned", coverage: 0.99, drawn: [], given: [:]); r.warningsDuringFlutter = ["too_far": 0.1]; return r }(),
            {
                var r = result("met, raised", coverage: 0.99, drawn: [], given: [:])
                r.warningsDuringFlutter = ["too_far": 0.5]
                r.warningsRaisedDuringFlutter = ["too_far": 1]
                return r
            }(),
        ])
        XCTAssertEqual(summary.underCoverage, 4)
        XCTAssertEqual(summary.underCoverageNamed, 3)
        XCTAssertEqual(summary.underCoverageMostlyNamed, 3)
        XCTAssertEqual(summary.underCoverageWithDrawnCause, 3)
        XCTAssertEqual(summary.underCoverageDrawnCauseGiven, 1)
        XCTAssertEqual(summary.metButWarned, 2)
        XCTAssertEqual(summary.metButRaised, 1)
    }
}

final class RaisedWarningTests: XCTestCase {
    /// A warning held from a sound before the breath does not count as raised during its flutter;
    /// one that appears, or changes its reason, within the scored flutter does.
    func testOnlyWarningsThatAppearWithinTheFlutterAreRaisedThere() {
        let breath = trueBreath(1, 5)
        let truth = GroundTruth(configuration: SimulationConfiguration(), duration: 8, breaths: [breath], huffs: [])
        var score = FrameScore(truth: truth, settling: 0.35, window: 0.25, frameInterval: 0.01)
        let scored = breath.flutterStart + 0.4
        for step in 0..<800 {
            let time = Double(step) / 100 + 0.005
            let warning: SignalProblem? =
                time < scored + 0.2 ? .tooNoisy : time < scored + 1 ? nil : time < scored + 1.5 ? .tooFar : time < scored + 2 ? .clipped : nil
            score.add(SessionFrame(time: time, pitch: nil, pressure: nil, confidence: 0, exhaling: true, zone: nil, levelDB: -30, warning: warning))
        }
        XCTAssertEqual(score.warningsRaisedDuringFlutter, ["too_far": 1, "clipped": 1])
        XCTAssertEqual(score.warningsDuringFlutter["too_noisy"] ?? 0, 0.25, accuracy: 0.011, "held from the settling time on, not raised")
    }
}

final class GaugeScoreTests: XCTestCase {
    /// The gauge's false reports are the live frames between true breaths that show a pitch; its
    /// gross errors the pitches shown during the flutter more than 20 % off the nominal contour.
    func testTheGaugesFalseReportsAndGrossErrorsCountLiveFrames() throws {
        let breath = trueBreath(1, 5)
        let truth = GroundTruth(configuration: SimulationConfiguration(), duration: 8, breaths: [breath], huffs: [])
        var score = FrameScore(truth: truth, settling: 0.35, window: 0.25, frameInterval: 0.01)
        var outside = 0, outsideShown = 0, shown = 0, wrong = 0
        for step in 0..<800 {
            let time = Double(step) / 100 + 0.005
            var pitch: Double?
            if let nominal = truth.pitch(at: time) {
                pitch = step % 4 == 0 ? nominal * 1.3 : nominal * 1.1
                shown += 1
                if step % 4 == 0 { wrong += 1 }
            } else if truth.breath(at: time) == nil {
                outside += 1
                if step % 5 == 0 {
                    pitch = 20
                    outsideShown += 1
                }
            }
            score.addLive(SessionFrame(time: time, pitch: pitch, pressure: nil, confidence: 0, exhaling: false, zone: nil, levelDB: -30))
        }
        XCTAssertGreaterThan(outside, 300)
        XCTAssertEqual(score.gaugeFalseReportShare, Double(outsideShown) / Double(outside), accuracy: 1e-12)
        XCTAssertEqual(score.gaugeGrossShare, Double(wrong) / Double(shown), accuracy: 1e-12)
        XCTAssertEqual(score.gaugeDelays.count, 1)
    }
}

final class OctaveScoreTests: XCTestCase {
    func testAnOctaveErrorIsAPitchNearTwiceOrHalfTheTrueRate() {
        for (ratio, expected) in [(2.0, true), (2.2, true), (1.8, true), (1.7, false), (2.3, false), (0.5, true), (0.45, true), (0.6, false), (1.0, false), (1.3, false)] {
            XCTAssertEqual(FrameScore.isOctaveError(20 * ratio, truePitch: 20), expected, "\(ratio) times the rate")
        }
    }

    /// The octave errors are the share of scored pitches at twice or half the realised rate; a
    /// breath is at the wrong octave when more than half of its scored pitches are.
    func testBreathsMostlyAtTheWrongOctaveAreCounted() throws {
        let breaths = [trueBreath(1, 5, index: 0), trueBreath(7, 11, index: 1)]
        let truth = GroundTruth(configuration: SimulationConfiguration(), duration: 12, breaths: breaths, huffs: [])
        var score = FrameScore(truth: truth, settling: 0.35, window: 0.25, frameInterval: 0.01)
        var scored = 0, octave = 0
        for step in 0..<1200 {
            let time = Double(step) / 100 + 0.005
            var pitch: Double?
            if let breath = truth.breath(at: time), time >= breath.flutterStart + 0.35, truth.pitch(at: time) != nil,
                let truePitch = score.realised.pitch(at: time, window: 0.25) {
                let first = breath.start < 6
                let wrong = first ? step % 3 != 0 : step % 5 == 0
                pitch = wrong ? (first ? 2 * truePitch : truePitch / 2) : (first ? truePitch : 1.3 * truePitch)
                scored += 1
                if wrong { octave += 1 }
            }
            score.add(SessionFrame(time: time, pitch: pitch, pressure: nil, confidence: 1, exhaling: true, zone: nil, levelDB: -30))
        }
        XCTAssertGreaterThan(scored, 500)
        XCTAssertEqual(score.octaveShare, Double(octave) / Double(scored), accuracy: 1e-12)
        XCTAssertEqual(score.breathsAtWrongOctave, 1, "the first breath, two thirds at twice its rate; the second a fifth at half")
        XCTAssertGreaterThan(score.grossShare, score.octaveShare, "30 % off is gross but no octave")
    }
}
