import Foundation
import XCTest
@testable import OPEPKit

/// Hands `samples` to `process` whole, or in chunks of the lengths of `chunks` in turn.
private func feed(_ samples: [Float], in chunks: [Int]?, to process: (UnsafeBufferPointer<Float>) -> Void) {
    samples.withUnsafeBufferPointer { all in
        guard let chunks else { return process(all) }
        var start = 0, next = 0
        while start < all.count {
            let end = min(all.count, start + chunks[next % chunks.count])
            process(UnsafeBufferPointer(rebasing: all[start..<end]))
            start = end
            next += 1
        }
    }
}

final class ClipMeterTests: XCTestCase {
    private func meter(sampleRate: Double = 16000) -> ClipMeter {
        ClipMeter(sampleRate: sampleRate, blockDuration: 0.01, tolerance: 0.001, fewestSteps: 16, memoryTime: 2)
    }

    private func share(of samples: [Float], chunks: [Int]? = nil, sampleRate: Double = 16000) -> Double {
        var meter = meter(sampleRate: sampleRate)
        feed(samples, in: chunks) { meter.process($0) }
        let duration = Double(samples.count) / sampleRate
        return meter.clippedShare(from: duration - 1, to: duration)
    }

    /// Noise cut flat at its own RMS holds about a third of its samples at the peak, wherever the
    /// limit lies; the same noise unclipped, a pure tone and quiet 8-bit noise count as unclipped.
    func testFlatTopsCountAndNaturalPeaksDoNot() {
        let noise = TestSignals.noise(sampleRate: 16000, duration: 2, rms: 0.1)
        let clipped = noise.map { min(max($0, -0.1), 0.1) }
        let clippedShare = share(of: clipped)
        XCTAssertEqual(clippedShare, 0.32, accuracy: 0.03)
        XCTAssertEqual(share(of: clipped.map { $0 * 5 }), clippedShare, accuracy: 1e-9, "the limit need not be full scale")
        XCTAssertLessThan(share(of: noise), 0.01, "the peak itself, one sample of a block's 160")
        let tone = (0..<32000).map { Float(0.5 * sin(2 * Double.pi * 441 * Double($0) / 16000)) }
        XCTAssertLessThan(share(of: tone), 0.04)
        let quiet8Bit = noise.map { ($0 * 0.05 * 127).rounded() / 127 }
        XCTAssertLessThan(share(of: quiet8Bit), 0.01, "a peak a few 8-bit steps high is not clipping: a lone peak, as in noise")
        XCTAssertEqual(share(of: clipped.map { $0 * 0.05 }), clippedShare, accuracy: 1e-9, "flat tops at -46 dBFS")
        let loud8Bit = clipped.map { ($0 * 8 * 127).rounded() / 127 }
        XCTAssertEqual(share(of: loud8Bit), clippedShare, accuracy: 0.03, "flat tops 102 steps high in 8 bits")
        let square = (0..<32000).map { Float($0 / 40 % 2 == 0 ? 0.01 : -0.01) }
        XCTAssertEqual(share(of: square), 1, "a square wave is all flat tops")
    }

    /// A breath clipped and then turned down to a few 8-bit steps piles its samples up at the
    /// peak and counts; a noise or a tone rounded to as few steps thins out towards its peak and
    /// does not, nor does a peak a single step high.
    func testFlatTopsAFewStepsHighCountWhereTheSamplesPileUp() {
        let noise = TestSignals.noise(sampleRate: 16000, duration: 2, rms: 0.1)
        func rounded(_ samples: [Float], steps: Float) -> [Float] { samples.map { ($0 * steps).rounded() / 127 } }
        let clippedAtOne = noise.map { min(max($0, -0.1), 0.1) / 0.1 }
        XCTAssertEqual(share(of: rounded(clippedAtOne, steps: 6)), 0.35, accuracy: 0.05, "flat tops 6 steps high in 8 bits")
        XCTAssertLessThan(share(of: rounded(noise.map { $0 / 0.1 }, steps: 2.2)), 0.01, "a noise whose peaks reach about 6 steps")
        let tone = (0..<32000).map { Float(sin(2 * Double.pi * 441 * Double($0) / 16000)) }
        XCTAssertLessThan(share(of: rounded(tone, steps: 4)), 0.01, "a tone 4 steps high")
        XCTAssertEqual(share(of: rounded(clippedAtOne, steps: 1)), 0, "flat tops a single step high")
    }

    /// The same audio in one block, sample by sample and in odd chunks reads the same share.
    func testTheShareDoesNotDependOnTheChunks() {
        let clipped = TestSignals.noise(sampleRate: 16000, duration: 2, rms: 0.2).map { min(max($0, -0.25), 0.25) }
        let whole = share(of: clipped)
        XCTAssertGreaterThan(whole, 0.1)
        XCTAssertEqual(share(of: clipped, chunks: [1]), whole)
        XCTAssertEqual(share(of: clipped, chunks: [7, 1000, 33, 160]), whole)
    }

    /// Only completed blocks inside the span and the memory count.
    func testTheSpanReadsItsOwnBlocks() {
        var meter = meter()
        let clipped = [Float](repeating: 0.5, count: 8000)
        let plain = TestSignals.noise(sampleRate: 16000, duration: 0.5, rms: 0.1)
        (clipped + plain).withUnsafeBufferPointer { meter.process($0) }
        XCTAssertEqual(meter.clippedShare(from: 0, to: 0.5), 1)
        XCTAssertLessThan(meter.clippedShare(from: 0.5, to: 1), 0.01)
        XCTAssertEqual(meter.clippedShare(from: 0.25, to: 0.75), 0.5, accuracy: 0.01)
        XCTAssertEqual(meter.clippedShare(from: 1, to: 2), 0, "blocks not yet heard")
    }
}

final class BandMeterTests: XCTestCase {
    private func upper(_ samples: [Float], sampleRate: Double, chunks: [Int]? = nil) -> Double? {
        var meter = BandMeter(sampleRate: sampleRate)
        feed(samples, in: chunks) { meter.process($0) }
        let duration = Double(samples.count) / sampleRate
        return meter.upperFrequency(from: duration - 1, to: duration)
    }

    /// Sinusoids at seeded random frequencies within `band`, 1.5 s.
    private func partials(_ band: ClosedRange<Double>, sampleRate: Double) -> [Float] {
        var generator = SeededGenerator(seed: 7)
        let tones = (0..<40).map { _ in (Double.random(in: band, using: &generator), Double.random(in: 0..<(2 * .pi), using: &generator)) }
        return (0..<Int(1.5 * sampleRate)).map { n in
            Float(tones.reduce(0) { $0 + 0.02 * sin(2 * .pi * $1.0 * Double(n) / sampleRate + $1.1) })
        }
    }

    /// A tone reads its own frequency; a telephone band reads under 3.2 kHz at any rate, a band up
    /// to 7 kHz and white noise well above it.
    func testItReadsHowFarUpTheSoundReaches() throws {
        for (rate, tone) in [(16000.0, 1000.0), (44100, 3000), (48000, 6000)] {
            let samples = (0..<Int(1.5 * rate)).map { Float(0.3 * sin(2 * Double.pi * tone * Double($0) / rate)) }
            XCTAssertEqual(try XCTUnwrap(upper(samples, sampleRate: rate)), tone, accuracy: 0.01 * tone)
        }
        for rate in [22050.0, 44100, 96000] {
            XCTAssertLessThan(try XCTUnwrap(upper(partials(300...3400, sampleRate: rate), sampleRate: rate)), 3200, "\(rate) Hz")
            XCTAssertGreaterThan(try XCTUnwrap(upper(partials(300...7000, sampleRate: rate), sampleRate: rate)), 4500, "\(rate) Hz")
        }
        XCTAssertGreaterThan(try XCTUnwrap(upper(TestSignals.noise(sampleRate: 44100, duration: 1.5, rms: 0.1), sampleRate: 44100)), 10000)
        XCTAssertNil(upper([Float](repeating: 0, count: 16000), sampleRate: 16000), "silence has no band")
    }

    /// The same audio in one block, sample by sample and in odd chunks reads the same.
    func testTheBandDoesNotDependOnTheChunks() {
        let noise = TestSignals.noise(sampleRate: 16000, duration: 1.5, rms: 0.1)
        let whole = upper(noise, sampleRate: 16000)
        XCTAssertNotNil(whole)
        XCTAssertEqual(upper(noise, sampleRate: 16000, chunks: [1]), whole)
        XCTAssertEqual(upper(noise, sampleRate: 16000, chunks: [7, 1000, 33, 160, 3]), whole)
    }
}

final class RoundingMeterTests: XCTestCase {
    private func step(of samples: [Float], sampleRate: Double = 16000, chunks: [Int]? = nil) -> Float? {
        var meter = RoundingMeter(sampleRate: sampleRate)
        feed(samples, in: chunks) { meter.process($0) }
        return meter.step
    }

    /// Sound rounded to 8 bits reads one 8-bit step however loud it is, the same sound scaled
    /// after the rounding reads the scaled step, and sound never rounded reads a step far below
    /// any 16-bit one; silence has none.
    func testItReadsTheStepTheSoundWasRoundedTo() throws {
        let noise = TestSignals.noise(sampleRate: 16000, duration: 1.5, rms: 0.1)
        for gain: Float in [0.02, 0.3, 3] {
            let rounded = noise.map { ($0 * gain * 127).rounded() / 127 }
            XCTAssertEqual(try XCTUnwrap(step(of: rounded)), 1 / 127, accuracy: 1e-7, "gain \(gain)")
            XCTAssertEqual(try XCTUnwrap(step(of: rounded.map { $0 * 0.5 })), 0.5 / 127, accuracy: 1e-7)
        }
        XCTAssertLessThan(try XCTUnwrap(step(of: noise)), 1e-4, "the closest of 4000 samples: 70 dB under the sound")
        XCTAssertNil(step(of: [Float](repeating: 0, count: 16000)))
        XCTAssertNil(step(of: [Float](repeating: .nan, count: 16000)), "no finite sample, no step")
    }

    /// The same audio in one block, sample by sample and in odd chunks reads the same; a coarse
    /// passage is forgotten after the meter's memory.
    func testTheStepDoesNotDependOnTheChunksAndIsForgotten() throws {
        let noise = TestSignals.noise(sampleRate: 16000, duration: 1.5, rms: 0.1)
        let whole = step(of: noise)
        XCTAssertNotNil(whole)
        XCTAssertEqual(step(of: noise, chunks: [1]), whole)
        XCTAssertEqual(step(of: noise, chunks: [7, 1000, 33, 160, 3]), whole)
        let coarse = noise.map { ($0 * 127).rounded() / 127 }
        XCTAssertEqual(try XCTUnwrap(step(of: noise + coarse)), 1 / 127, accuracy: 1e-7)
        XCTAssertLessThan(try XCTUnwrap(step(of: coarse + noise)), 1e-4, "1.5 s later only the fine sound counts")
        let silence = [Float](repeating: 0, count: 32000)
        XCTAssertEqual(try XCTUnwrap(step(of: coarse + silence)), 1 / 127, accuracy: 1e-7, "digital silence tells nothing")
    }
}

final class SignalCheckTests: XCTestCase {
    private let frame = 0.01

    private func check(_ configure: (inout SignalCheck.Configuration) -> Void = { _ in }) throws -> SignalCheck {
        var configuration = SignalCheck.Configuration()
        configure(&configuration)
        return try SignalCheck(configuration: configuration, frameInterval: frame)
    }

    /// Runs `seconds` of one observation; returns the verdicts.
    private func run(_ check: inout SignalCheck, _ seconds: Double, _ observation: SignalCheck.Observation) -> [SignalCheck.Verdict] {
        (0..<Int((seconds / frame).rounded())).map { _ in check.process(observation) }
    }

    private func sound(
        level: Double = -30, room: Double = -70, pitched: Bool = false, modulation: Double = 0.5, clipped: Double = 0,
        band: Double? = 6000, overshoot: Double? = 1
    ) -> SignalCheck.Observation {
        .init(
            levelDB: level, roomDB: room, sounding: true, pitched: pitched, modulation: modulation, clippedShare: clipped,
            upperFrequencyHz: band, onsetOvershootDB: overshoot)
    }

    private let quiet = SignalCheck.Observation(levelDB: -70, roomDB: -70, sounding: false, pitched: false, modulation: 0, clippedShare: 0)

    /// Each cause gets its own reason, with its measure, in the documented order (a condition of
    /// the sound at once, no flutter once the sound has gone on for the patience), and the same as
    /// its warning.
    func testEachCauseIsNamedWithItsMeasure() throws {
        let cases: [(SignalCheck.Observation, SignalProblem, Double)] = [
            (sound(clipped: 0.3, band: 2000), .clipped, 0.3),
            (sound(level: -40, room: -45, band: 2900, overshoot: 8), .gainControl, 8),
            (sound(level: -40, room: -45, modulation: 0.1, band: 2900), .bandLimited, 2900),
            (sound(level: -40, room: -45, modulation: 0.1, overshoot: 4.5), .gainControl, 4.5),
            (sound(level: -40, room: -45, clipped: 0.01), .tooNoisy, SignalCheck.signalToNoise(levelDB: -40, roomDB: -45)),
            (sound(level: -65, room: -70), .tooQuiet, SignalCheck.signalToNoise(levelDB: -65, roomDB: -70)),
            (sound(modulation: 0.12), .tooFar, 0.12 * (1 + pow(10, -SignalCheck.signalToNoise(levelDB: -30, roomDB: -70) / 10))),
            (sound(level: -40, room: -45, modulation: 0.1), .tooFar, 0.1 * (1 + pow(10, -SignalCheck.signalToNoise(levelDB: -40, roomDB: -45) / 10))),
            (sound(level: -40, room: -45, modulation: 0.15), .tooNoisy, SignalCheck.signalToNoise(levelDB: -40, roomDB: -45)),
            (sound(modulation: 0.6), .noFlutter, 0.6),
        ]
        for (observation, problem, measure) in cases {
            var check = try check()
            let verdicts = run(&check, 2, observation)
            let first = problem == .noFlutter ? 120 : 0
            XCTAssertEqual(verdicts.firstIndex { $0.reason != nil }, first, "a condition at once, no flutter only after 1.2 s")
            XCTAssertEqual(verdicts.last?.reason?.problem, problem)
            XCTAssertEqual(verdicts.last?.warning?.problem, problem)
            XCTAssertEqual(verdicts.last?.reason?.measure ?? .nan, measure, accuracy: 1e-9, "\(problem)")
        }
        var unknownBand = try check()
        XCTAssertEqual(run(&unknownBand, 2, sound(band: nil)).last?.reason?.problem, .noFlutter, "a band not measured is no condition")
        var noOvershootYet = try check()
        XCTAssertEqual(run(&noOvershootYet, 2, sound(modulation: 0.1, overshoot: nil)).last?.reason?.problem, .tooFar)
        var slightOvershoot = try check()
        XCTAssertEqual(run(&slightOvershoot, 2, sound(modulation: 0.1, overshoot: 2.9)).last?.reason?.problem, .tooFar)
        func risen(_ rise: Double?, overshoot: Double = 1) -> SignalCheck.Observation {
            var o = sound(level: -40, room: -45, modulation: 0.1, overshoot: overshoot)
            o.roomRiseDB = rise
            return o
        }
        var rising = try check()
        XCTAssertEqual(run(&rising, 2, risen(4)).last?.reason, SignalCheck.Finding(problem: .gainControl, measure: 4), "the room's rise alone")
        var both = try check()
        XCTAssertEqual(run(&both, 2, risen(4, overshoot: 5)).last?.reason, SignalCheck.Finding(problem: .gainControl, measure: 5), "the overshoot first")
        var slightRise = try check()
        XCTAssertEqual(run(&slightRise, 2, risen(1.9)).last?.reason?.problem, .tooFar)
        func shallow(evidence: Double?) -> SignalCheck.Observation {
            var o = sound(modulation: 0.12)
            o.periodEvidence = evidence
            return o
        }
        var noPeriod = try check()
        XCTAssertEqual(run(&noPeriod, 2, shallow(evidence: 0.1)).last?.reason, SignalCheck.Finding(problem: .noFlutter, measure: 0.12), "no period persists: no device")
        var weakPeriod = try check()
        XCTAssertEqual(run(&weakPeriod, 2, shallow(evidence: 0.3)).last?.reason?.problem, .tooFar, "a period persists: the device, heard from afar")
        var unknownEvidence = try check()
        XCTAssertEqual(run(&unknownEvidence, 2, shallow(evidence: nil)).last?.reason?.problem, .tooFar)
        XCTAssertEqual(SignalCheck.signalToNoise(levelDB: -20, roomDB: -30), 9.54, accuracy: 0.01)
    }

    /// A sound a few rounding steps loud is too quiet, its ratio taken over the rounding noise
    /// however silent the room between sounds; a room louder than the rounding is still noise.
    func testASoundMaskedByItsOwnRoundingIsTooQuiet() throws {
        func observation(room: Double, rounding: Double?) -> SignalCheck.Observation {
            var o = sound(level: -50, room: room)
            o.roundingDB = rounding
            return o
        }
        var rounded = try check()
        let reason = try XCTUnwrap(run(&rounded, 2, observation(room: -120, rounding: -53)).last?.reason)
        XCTAssertEqual(reason.problem, .tooQuiet)
        let floor = SignalCheck.noiseFloor(roomDB: -120, roundingDB: -53)
        XCTAssertEqual(floor, -53, accuracy: 0.01)
        XCTAssertEqual(reason.measure, SignalCheck.signalToNoise(levelDB: -50, roomDB: floor), accuracy: 1e-9)
        var noisy = try check()
        XCTAssertEqual(run(&noisy, 2, observation(room: -52, rounding: -53)).last?.reason?.problem, .tooNoisy)
        var fine = try check()
        XCTAssertEqual(run(&fine, 2, observation(room: -120, rounding: -101)).last?.reason?.problem, .noFlutter, "16-bit rounding under a breath at -50 dBFS")
        var unknown = try check()
        XCTAssertEqual(run(&unknown, 2, observation(room: -120, rounding: nil)).last?.reason?.problem, .noFlutter)
    }

    /// No reason while nothing sounds or the flutter is heard; a warning waits for the patience,
    /// clears once the flutter is measured again and outlasts its sound by the hold time only.
    func testTimingOfAWarning() throws {
        var check = try check()
        XCTAssertTrue(run(&check, 3, quiet).allSatisfy { $0.reason == nil && $0.warning == nil }, "nothing sounding")
        XCTAssertTrue(run(&check, 3, sound(pitched: true)).allSatisfy { $0.reason == nil && $0.warning == nil }, "a flutter heard")
        check.reset()
        let unheard = run(&check, 2, sound(clipped: 0.5))
        XCTAssertEqual(unheard.firstIndex { $0.warning != nil }, 120, "after 1.2 s of a sound without a pitch")
        let after = run(&check, 2, quiet)
        XCTAssertEqual(after.firstIndex { $0.warning == nil }, 100, "held 1 s after the sound")
        XCTAssertTrue(after.allSatisfy { $0.reason == nil })
        check.reset()
        XCTAssertNil(check.warning)
    }

    /// Once the flutter has been followed for the patience, the warning rises when a pitch is
    /// reported in under 30 % of the recent frames (a memory of 1 s: 1.2 s after the pitch goes,
    /// as for a sound never measured) and clears when the share is back above 60 %. A flutter
    /// lost for less than that, as a tracker loses one for a moment, is not warned about.
    func testAFlutterThatIsLostIsWarnedAbout() throws {
        var moment = try check()
        XCTAssertTrue(run(&moment, 2, sound(pitched: true)).allSatisfy { $0.warning == nil })
        XCTAssertTrue(run(&moment, 0.8, sound(modulation: 0.1)).allSatisfy { $0.warning == nil }, "lost for 0.8 s")
        var check = try check()
        XCTAssertTrue(run(&check, 2, sound(pitched: true)).allSatisfy { $0.warning == nil })
        let lost = run(&check, 2, sound(modulation: 0.1))
        XCTAssertEqual(lost.firstIndex { $0.warning != nil }, 119)
        XCTAssertEqual(lost[119].warning?.problem, .noFlutter, "the modulation's mean still 0.22")
        XCTAssertEqual(lost.last?.warning?.problem, .tooFar, "and 0.15 after 2 s")
        let back = run(&check, 2, sound(pitched: true))
        XCTAssertNotNil(back.first?.warning, "not cleared by a single pitch")
        XCTAssertEqual(back.firstIndex { $0.warning == nil }, 76, "cleared once 60 % of the recent frames have a pitch")
    }

    /// A clipped sound is named clipped, pitch or not, but warned about only once its flutter is
    /// not measured: then after the patience, as any other cause.
    func testClippingIsWarnedAboutOnlyWhenTheFlutterIsLost() throws {
        var check = try check()
        let measured = run(&check, 2, sound(pitched: true, clipped: 0.3))
        XCTAssertEqual(measured.last?.reason?.problem, .clipped, "a condition, pitch or not")
        XCTAssertTrue(measured.allSatisfy { $0.warning == nil })
        _ = run(&check, 2, quiet)
        let lost = run(&check, 2, sound(clipped: 0.3))
        XCTAssertEqual(lost.firstIndex { $0.warning != nil }, 120)
        XCTAssertEqual(lost.last?.warning?.problem, .clipped)
    }

    /// A recording clipped between sounds too (so loud that no breath stands out as a sound) is
    /// warned about after the patience; a short clipped moment and a clean room are not.
    func testARoomClippedBetweenSoundsIsWarnedAbout() throws {
        var check = try check()
        var clippedRoom = quiet
        clippedRoom.levelDB = -16
        clippedRoom.clippedShare = 0.2
        XCTAssertTrue(run(&check, 1, clippedRoom).allSatisfy { $0.warning == nil }, "within the patience")
        XCTAssertTrue(run(&check, 2, quiet).allSatisfy { $0.warning == nil }, "a clean room after it")
        _ = run(&check, 1, clippedRoom)
        XCTAssertTrue(run(&check, 0.5, sound(pitched: true)).allSatisfy { $0.warning == nil }, "a sound ends the run")
        let verdicts = run(&check, 2, clippedRoom)
        XCTAssertEqual(verdicts.firstIndex { $0.warning != nil }, 120)
        XCTAssertEqual(verdicts.last?.warning, SignalCheck.Finding(problem: .clipped, measure: 0.2))
        XCTAssertEqual(verdicts.last?.reason, verdicts.last?.warning, "its frames have the finding as their reason")
        XCTAssertNil(verdicts[119].reason)
        let measured = run(&check, 2, sound(pitched: true))
        XCTAssertNil(measured.last?.warning, "cleared once a flutter is measured")
    }

    /// A microphone that hears nothing (digital zeros: -140 dBFS) is warned about as too quiet
    /// after the patience, its level the measure; the quietest room a microphone hears is not.
    func testAMicrophoneThatHearsNothingIsWarnedAbout() throws {
        var check = try check()
        var silent = quiet
        silent.levelDB = -140
        silent.roomDB = -140
        var faintRoom = quiet
        faintRoom.levelDB = -100
        XCTAssertTrue(run(&check, 5, faintRoom).allSatisfy { $0.warning == nil && $0.reason == nil })
        let verdicts = run(&check, 2, silent)
        XCTAssertEqual(verdicts.firstIndex { $0.warning != nil }, 120)
        XCTAssertEqual(verdicts.last?.warning, SignalCheck.Finding(problem: .tooQuiet, measure: -140))
        XCTAssertEqual(verdicts.last?.reason, verdicts.last?.warning)
        XCTAssertNil(verdicts[119].reason, "within the patience")
        XCTAssertTrue(run(&check, 0.5, sound(pitched: true)).allSatisfy { $0.reason == nil }, "a sound ends the run")
        let old = try JSONDecoder().decode(SignalCheck.Configuration.self, from: Data(#"{"patience": 1.2}"#.utf8))
        XCTAssertEqual(old.silentDBFS, -140, "settings stored before it read a level no frame lies under")
        XCTAssertEqual(old.gainControlRoomRiseDB, 120, "settings stored before it read a rise no room makes")
        XCTAssertEqual(old.noFlutterEvidence, 0, "settings stored before it read no evidence as too little")
        XCTAssertEqual(SignalCheck.Configuration().gainControlRoomRiseDB, 2)
    }

    /// The measures restart with each sound: a clipped sound does not taint the next one.
    func testEachSoundStartsAfresh() throws {
        var check = try check()
        _ = run(&check, 2, sound(clipped: 0.5))
        _ = run(&check, 2, quiet)
        XCTAssertEqual(run(&check, 2, sound(modulation: 0.1)).last?.warning?.problem, .tooFar)
    }

    /// The placement check's verdict on a whole breath: clipping first, then a clear flutter,
    /// then the condition the averages meet, then the reason given most, then no flutter.
    func testTheVerdictOnAWholeBreath() {
        let c = SignalCheck.Configuration()
        func verdict(snr: Double? = 30, room: Double? = -60, modulation: Double = 0.6, clipped: Double = 0.005,
                     share: Double = 0.9, unmeasured: UnmeasuredTime = UnmeasuredTime(), band: Double? = 6000) -> SignalProblem? {
            SignalCheck.verdict(
                on: SignalFigures(snrDB: snr, modulation: modulation, clippedShare: clipped, upperFrequencyHz: band, problem: nil),
                roomDB: room, flutterShare: share, unmeasured: unmeasured, configuration: c)
        }
        XCTAssertNil(verdict())
        XCTAssertEqual(verdict(clipped: 0.05), .clipped, "clipped even while measured")
        XCTAssertNil(verdict(snr: 5, modulation: 0.1), "measured in 90 %: heard clearly")
        XCTAssertEqual(verdict(snr: 5, room: -40, share: 0.3), .tooNoisy)
        XCTAssertEqual(verdict(snr: 5, room: -70, share: 0.3), .tooQuiet)
        XCTAssertEqual(verdict(modulation: 0.1, share: 0.3), .tooFar)
        XCTAssertEqual(verdict(snr: 5, share: 0.3, band: 2800), .bandLimited, "the band before the noise")
        XCTAssertEqual(verdict(snr: nil, share: 0.3, unmeasured: UnmeasuredTime(total: 2, tooNoisy: 0.5, tooFar: 1)), .tooFar)
        XCTAssertEqual(verdict(share: 0.3), .noFlutter)
    }

    func testSettingsOutOfRangeAreNamed() {
        XCTAssertThrowsError(try check { $0.memoryTime = 0 }) { error in
            XCTAssertEqual((error as? EngineConfigurationError)?.parameter, "signal.memoryTime")
        }
        XCTAssertThrowsError(try check { $0.noFlutterEvidence = 1.5 }) { error in
            XCTAssertEqual((error as? EngineConfigurationError)?.parameter, "signal.noFlutterEvidence")
        }
        XCTAssertThrowsError(try check { $0.gainControlRoomRiseDB = -1 }) { error in
            XCTAssertEqual((error as? EngineConfigurationError)?.parameter, "signal.gainControlRoomRiseDB")
        }
    }
}

final class OnsetOvershootMeterTests: XCTestCase {
    private let frame = 0.01

    /// Feeds one sound of `levels` (dB, one per frame), taken for an exhalation from its 30th
    /// frame when `exhaling`, then 0.5 s of quiet.
    private func breathe(_ meter: inout OnsetOvershootMeter, _ levels: [Double], exhaling: Bool = true) {
        for (index, level) in levels.enumerated() {
            meter.process(levelDB: level, sounding: true, exhaling: exhaling && index >= 30)
        }
        for _ in 0..<50 { meter.process(levelDB: -70, sounding: false, exhaling: false) }
    }

    /// A breath rising to its level over 0.3 s, with a fading tail: no overshoot.
    private func natural(_ level: Double = -30, seconds: Double = 3) -> [Double] {
        let frames = Int(seconds / frame)
        return (0..<frames).map { i in
            if i < 30 { return level - 20 + 20 * Double(i) / 30 }
            if i >= frames - 40 { return level - Double(i - (frames - 40)) }
            return level + (i % 2 == 0 ? 0.5 : -0.5)
        }
    }

    /// The same breath through a gain control: its first 0.15 s 6 dB too loud.
    private func pumped(_ level: Double = -30) -> [Double] {
        natural(level).enumerated().map { $0.offset < 15 ? level + 6 : $0.element }
    }

    func testAGainControlsOnsetPeakIsMeasuredAndANaturalRiseIsNot() {
        var meter = OnsetOvershootMeter(frameInterval: frame)
        XCTAssertNil(meter.overshootDB)
        breathe(&meter, natural())
        XCTAssertEqual(meter.overshootDB ?? .nan, 0, accuracy: 0.3, "the loudest onset frame is as loud as the plateau's loudest")
        var pumping = OnsetOvershootMeter(frameInterval: frame)
        breathe(&pumping, pumped())
        XCTAssertEqual(pumping.overshootDB ?? .nan, 5.5, accuracy: 0.3, "6 dB over the plateau, 5.5 over its loudest frames")
    }

    /// An inhalation or the room's music 20 dB under the breath, running into it as one sound,
    /// does not hide the onset: it is where the sound comes near its own level.
    func testASoundStartingBeforeTheExhalationIsMeasuredFromTheExhalationsOnset() {
        let inhalation = [Double](repeating: -50, count: 100)
        var pumping = OnsetOvershootMeter(frameInterval: frame)
        breathe(&pumping, inhalation + pumped())
        XCTAssertEqual(pumping.overshootDB ?? .nan, 5.5, accuracy: 0.3)
        var meter = OnsetOvershootMeter(frameInterval: frame)
        breathe(&meter, inhalation + natural())
        XCTAssertEqual(meter.overshootDB ?? .nan, 0, accuracy: 0.3)
        var short = OnsetOvershootMeter(frameInterval: frame)
        breathe(&short, inhalation + Array(pumped().prefix(120)))
        XCTAssertNil(short.overshootDB, "1.2 s of exhalation after the inhalation is under 1.5 s")
    }

    /// Short sounds, sounds not taken for exhalations and one odd breath do not move the median.
    func testOnlyExhalationsCountAndTheMedianHolds() {
        var meter = OnsetOvershootMeter(frameInterval: frame)
        breathe(&meter, pumped(), exhaling: false)
        breathe(&meter, Array(pumped().prefix(120)))
        XCTAssertNil(meter.overshootDB, "a voice, and a sound under 1.5 s")
        for _ in 0..<4 { breathe(&meter, natural()) }
        breathe(&meter, pumped(-20))
        XCTAssertEqual(meter.overshootDB ?? .nan, 0, accuracy: 0.3)
        meter.reset()
        XCTAssertNil(meter.overshootDB)
        for _ in 0..<12 { breathe(&meter, pumped()) }
        XCTAssertEqual(meter.overshootDB ?? .nan, 5.5, accuracy: 0.3, "the last nine")
    }

    /// A breath whose level fluctuates by itself, 4 dB either way from frame to frame (real
    /// breath does), has a frame near its loudest in any 0.4 s: no overshoot, while the same
    /// breath through a gain control keeps its 6 dB.
    func testALevelThatFluctuatesByItselfReadsNoOvershoot() {
        var random = SeededGenerator(seed: 7)
        func fluctuating(_ levels: [Double]) -> [Double] {
            levels.enumerated().map { $0.offset < 30 ? $0.element : $0.element + Double.random(in: -4...4, using: &random) }
        }
        var meter = OnsetOvershootMeter(frameInterval: frame)
        var pumping = OnsetOvershootMeter(frameInterval: frame)
        for _ in 0..<9 {
            breathe(&meter, fluctuating(natural()))
            breathe(&pumping, fluctuating(natural()).enumerated().map { $0.offset < 15 ? -30 + 10 : $0.element })
        }
        XCTAssertEqual(meter.overshootDB ?? .nan, 0, accuracy: 0.5)
        XCTAssertEqual(pumping.overshootDB ?? .nan, 6, accuracy: 0.6, "10 dB over the plateau, about 4 over its loudest frames")
    }
}

final class RoomRiseMeterTests: XCTestCase {
    private let frame = 0.01
    private var random = SeededGenerator(seed: 23)

    /// Feeds a 2 s exhalation at -20 dB, then a pause of `seconds` whose level at `t` seconds
    /// into it is `room(t)` with ±1 dB of seeded jitter.
    private func breathe(_ meter: inout RoomRiseMeter, pause seconds: Double = 2.5, room: (Double) -> Double) {
        for _ in 0..<200 { meter.process(levelDB: -20, exhaling: true) }
        for i in 0..<Int((seconds / frame).rounded()) {
            meter.process(levelDB: room(Double(i) * frame) + Double.random(in: -1...1, using: &random), exhaling: false)
        }
    }

    /// A gain control giving 10 dB back with a release of 1 s after each breath: the room reads
    /// its gain's return between 0.3-0.8 s and the pause's last 0.5 s.
    private func released(_ t: Double) -> Double { -60 - 10 * exp(-t) }

    func testAGainControlsReleaseIsMeasuredOnceThreePausesWere() {
        var meter = RoomRiseMeter(frameInterval: frame)
        for _ in 0..<3 {
            XCTAssertNil(meter.riseDB, "fewer than three pauses")
            breathe(&meter, room: released)
        }
        XCTAssertNil(meter.riseDB, "two pauses: the third counts once the next exhalation starts")
        breathe(&meter, room: released)
        // 10 dB · (e^-0.3 … e^-0.8, its quietest 10 %) against 10 dB · e^-2.5 … e^-2.0 (its quietest 10 %).
        let expected = 10 * (exp(-0.35) - exp(-2.05))
        XCTAssertEqual(meter.riseDB ?? .nan, expected, accuracy: 1)
        meter.reset()
        XCTAssertNil(meter.riseDB)
    }

    /// A steady room reads no rise; a voice at the end of one pause in five does not move the
    /// lower quartile.
    func testASteadyRoomReadsNoneAndOnePauseDoesNotCount() {
        var meter = RoomRiseMeter(frameInterval: frame)
        for _ in 0..<5 { breathe(&meter) { _ in -60 } }
        breathe(&meter, room: { _ in -60 })
        XCTAssertEqual(meter.riseDB ?? .nan, 0, accuracy: 0.6)
        var voiced = RoomRiseMeter(frameInterval: frame)
        breathe(&voiced) { t in t > 2 ? -35 : -60 }
        for _ in 0..<4 { breathe(&voiced) { _ in -60 } }
        breathe(&voiced, room: { _ in -60 })
        XCTAssertEqual(voiced.riseDB ?? .nan, 0, accuracy: 0.6)
    }

    /// Pauses under 1.5 s, and windows heard in under a fifth of their frames (digital silence of
    /// a sound rounded to 8 bits), give no rise.
    func testShortPausesAndUnheardWindowsGiveNone() {
        var short = RoomRiseMeter(frameInterval: frame)
        for _ in 0..<6 { breathe(&short, pause: 1.4, room: released) }
        XCTAssertNil(short.riseDB)
        var silent = RoomRiseMeter(frameInterval: frame)
        for _ in 0..<6 { breathe(&silent) { t in t < 1 ? -140 : -60 } }
        XCTAssertNil(silent.riseDB, "the early window digital zeros")
        var sparse = RoomRiseMeter(frameInterval: frame)
        for _ in 0..<6 { breathe(&sparse) { t in Int(t * 100) % 4 == 0 ? released(t) : -140 } }
        XCTAssertEqual(sparse.riseDB ?? .nan, 10 * (exp(-0.35) - exp(-2.05)), accuracy: 1.5, "a quarter heard is enough")
    }
}

final class RecentValuesTests: XCTestCase {
    func testMedianAndLowerQuartileOfTheLastFew() {
        var values = RecentValues(capacity: 5)
        XCTAssertNil(values.median)
        XCTAssertNil(values.lowerQuartile)
        for value in [9.0, 1, 5, 3] { values.add(value) }
        XCTAssertEqual(values.median, 4)
        XCTAssertEqual(values.lowerQuartile, 3, "the second of four, sorted")
        for value in [7.0, 2, 8] { values.add(value) }
        XCTAssertEqual(values.count, 5)
        XCTAssertEqual(values.median, 5, "5, 3, 7, 2, 8: 9 and 1 forgotten")
        XCTAssertEqual(values.lowerQuartile, 3)
        values.removeAll()
        XCTAssertNil(values.median)
    }
}
