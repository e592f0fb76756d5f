import XCTest
@testable import OPEPKit

final class SessionAnalyzerTests: XCTestCase {
    private struct Run {
        var live: [SessionFrame] = []
        var liveBeforeFinal: [Int] = []
        var frames: [SessionFrame] = []
        var events: [SessionEvent] = []
        var report: SessionReport?
    }

    private func analyse(_ samples: [Float], sampleRate: Double, chunk: Int? = nil, configure: (inout SessionAnalyzer.Configuration) -> Void = { _ in }) throws -> Run {
        var configuration = SessionAnalyzer.Configuration(sampleRate: sampleRate)
        configure(&configuration)
        var analyzer = try SessionAnalyzer(configuration: configuration)
        var run = Run()
        let collect: (SessionOutput) -> Void = { output in
            switch output {
            case let .live(frame):
                run.live.append(frame)
            case let .frame(frame):
                run.frames.append(frame)
                run.liveBeforeFinal.append(run.live.count - run.frames.count)
            case let .event(event): run.events.append(event)
            }
        }
        let step = chunk ?? samples.count
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + step)
            analyzer.process(Array(samples[start..<end]), onOutput: collect)
            start = end
        }
        run.report = analyzer.finish(onOutput: collect)
        return run
    }

    func testCountsBreathsSetsAndHuffCoughs() throws {
        for sampleRate in [16000.0, 44100] {
            let session = TestSession(sampleRate: sampleRate, sets: 2, breathsPerSet: 4)
            let run = try analyse(session.samples, sampleRate: sampleRate)
            let report = try XCTUnwrap(run.report)
            XCTAssertEqual(report.summary.breathCount, 8, "\(sampleRate) Hz")
            XCTAssertEqual(report.summary.setCount, 2)
            XCTAssertEqual(report.sets.map(\.breathCount), [4, 4])
            XCTAssertEqual(report.summary.huffCoughCount, 4)
            XCTAssertEqual(report.sets.map(\.huffCoughs), [2, 2])
            for (found, truth) in zip(report.breaths, session.exhalations) {
                XCTAssertEqual(found.start, truth.start, accuracy: 0.1)
                XCTAssertEqual(found.end, truth.end, accuracy: 0.15)
                XCTAssertEqual(try XCTUnwrap(found.meanPitch), truth.pitch, accuracy: 0.15)
                XCTAssertEqual(try XCTUnwrap(found.meanPressure), DeviceProfile.acapella.pressure(forPitch: truth.pitch), accuracy: 0.17)
            }
            XCTAssertGreaterThanOrEqual(report.summary.inhalationsHeard, 3)
            XCTAssertNotNil(report.summary.exhalationInhalationRatio)
        }
    }

    /// A breath in as loud and short as a huff cough, 1-2.5 s before each exhalation, is the breath
    /// in before it: counted as an inhalation, not as a huff cough. The same burst with nothing
    /// after it is a huff cough, but not before the session's first breath.
    func testALoudBreathInBeforeAnExhalationIsNoHuffCough() throws {
        let sampleRate = 16000.0
        var rng = SeededGenerator(seed: 5)
        func room(_ seconds: Double) -> [Float] { TestSignals.noise(sampleRate: sampleRate, duration: seconds, rms: 0.001, seed: rng.next()) }
        func burst() -> [Float] {
            var x = TestSignals.noise(sampleRate: sampleRate, duration: 0.5, rms: 0.2, seed: rng.next())
            for i in x.indices { x[i] *= Float(sin(.pi * Double(i) / Double(x.count))) }
            return x
        }
        var samples = room(1.5)
        for hold in [1.0, 1.8, 2.5] {
            samples += burst() + room(hold)
            samples += TestSignals.flutter(sampleRate: sampleRate, duration: 3, pitch: { _ in 18 }, seed: rng.next()) + room(3)
        }
        let report = try XCTUnwrap(try analyse(samples + room(6), sampleRate: sampleRate).report)
        XCTAssertEqual(report.summary.breathCount, 3)
        XCTAssertEqual(report.summary.huffCoughCount, 0)
        XCTAssertEqual(report.summary.inhalationsHeard, 3)
        let breathIn = try XCTUnwrap(report.summary.meanBreathDuration) / XCTUnwrap(report.summary.exhalationInhalationRatio)
        XCTAssertTrue((0.5...0.7).contains(breathIn),
                      "each breath in over all of its 0.5 s (a little longer through the frames' windows), not its loudest stretch (0.34 s): \(breathIn) s")

        let alone = try XCTUnwrap(try analyse(samples + burst() + room(8), sampleRate: sampleRate).report)
        XCTAssertEqual(alone.summary.breathCount, 3)
        XCTAssertEqual(alone.summary.huffCoughCount, 1)

        let beforeAnyBreath = try XCTUnwrap(try analyse(room(1.5) + burst() + room(8), sampleRate: sampleRate).report)
        XCTAssertEqual(beforeAnyBreath.summary.breathCount, 0)
        XCTAssertEqual(beforeAnyBreath.summary.huffCoughCount, 0, "huff coughs follow a set: none before the session's first breath")
    }

    /// A breath not heard inside a set leaves a pause of two breaths' spacing (10 s here), which
    /// does not end the set; a rest of 20 s without huff coughs does.
    func testAPauseOfOneBreathNotHeardKeepsTheSetAndARestEndsIt() throws {
        let sampleRate = 16000.0
        var rng = SeededGenerator(seed: 9)
        func room(_ seconds: Double) -> [Float] { TestSignals.noise(sampleRate: sampleRate, duration: seconds, rms: 0.001, seed: rng.next()) }
        var samples = room(1.5)
        for pause in [3.5, 3.5, 10, 3.5, 20, 3.5, 3.5, 3] {
            samples += TestSignals.flutter(sampleRate: sampleRate, duration: 3, pitch: { _ in 18 }, seed: rng.next()) + room(pause)
        }
        let report = try XCTUnwrap(try analyse(samples, sampleRate: sampleRate).report)
        XCTAssertEqual(report.summary.breathCount, 8)
        XCTAssertEqual(report.sets.map(\.breathCount), [5, 3])

        let eager = try XCTUnwrap(try analyse(samples, sampleRate: sampleRate) { $0.setPause = 8 }.report)
        XCTAssertEqual(eager.sets.map(\.breathCount), [3, 2, 3], "a set pause of 8 s splits the first set at the 10 s pause")
    }

    /// Each breath's time without a pitch is what its flutter share leaves, the session's adds
    /// them up, and the reasons never exceed it. A clear session's frames carry no condition; the
    /// same session cut flat at its exhalations' RMS is named clipped, and so is each of its breaths
    /// (``SignalFigures``), where the clear session's breaths are heard clearly.
    func testTheSignalCheckAccountsForTheTimeNotMeasured() throws {
        let session = TestSession(sampleRate: 16000, sets: 1, breathsPerSet: 4)
        let clear = try analyse(session.samples, sampleRate: 16000)
        let report = try XCTUnwrap(clear.report)
        XCTAssertEqual(report.breaths.count, 4)
        for breath in report.breaths {
            let unmeasured = try XCTUnwrap(breath.unmeasured)
            XCTAssertEqual(unmeasured.total, (1 - breath.flutterShare) * breath.duration, accuracy: 0.011)
            XCTAssertLessThanOrEqual(SignalProblem.allCases.reduce(0) { $0 + unmeasured.time($1) }, unmeasured.total + 1e-9)
        }
        let total = report.breaths.reduce(0) { $0 + ($1.unmeasured?.total ?? 0) }
        XCTAssertEqual(try XCTUnwrap(report.summary.unmeasured).total, total, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(report.summary.flutterShare), 1 - total / report.summary.exhalationTime, accuracy: 0.01)
        XCTAssertFalse(clear.frames.contains { $0.exhaling && $0.pitch != nil && $0.signal != nil }, "a clear flutter has no condition")
        for breath in report.breaths {
            let signal = try XCTUnwrap(breath.signal)
            XCTAssertNil(signal.problem, "breath \(breath.index) was heard clearly")
            XCTAssertGreaterThan(try XCTUnwrap(signal.snrDB), 20)
            XCTAssertGreaterThan(signal.modulation, 0.3)
            XCTAssertLessThan(signal.clippedShare, 0.02)
        }

        let exhaling = session.exhalations.flatMap { session.samples[Int($0.start * 16000)..<Int($0.end * 16000)] }
        let limit = (exhaling.reduce(0) { $0 + $1 * $1 } / Float(exhaling.count)).squareRoot()
        XCTAssertGreaterThan(limit, 0.0317, "above the clip meter's quietest peak")
        let clipped = try analyse(session.samples.map { min(max($0, -limit), limit) }, sampleRate: 16000)
        let breathFrames = clipped.frames.filter(\.exhaling)
        XCTAssertGreaterThan(Double(breathFrames.filter { $0.signal == .clipped }.count), 0.8 * Double(breathFrames.count))
        for breath in try XCTUnwrap(clipped.report).breaths {
            XCTAssertEqual(breath.signal?.problem, .clipped, "breath \(breath.index)")
            XCTAssertGreaterThan(breath.signal?.clippedShare ?? 0, 0.02)
        }
    }

    /// A session turned down until its exhalations are half an 8-bit step loud, then rounded to
    /// 8 bits, has its breaths' ratio read over their own rounding noise, not over the digital
    /// silence between them, and the frames it loses named too quiet. Turned down as far
    /// without the rounding, its breaths stand as far over the room as before.
    func testABreathMaskedByItsOwnRoundingIsTooQuiet() throws {
        let session = TestSession(sampleRate: 16000, sets: 1, breathsPerSet: 4)
        let exhaling = session.exhalations.flatMap { session.samples[Int($0.start * 16000)..<Int($0.end * 16000)] }
        let rms = (exhaling.reduce(0) { $0 + $1 * $1 } / Float(exhaling.count)).squareRoot()
        let quiet = session.samples.map { $0 * 0.5 / 127 / rms }
        let rounded = try analyse(quiet.map { ($0 * 127).rounded() / 127 }, sampleRate: 16000)
        let named = rounded.frames.filter { $0.exhaling && $0.pitch == nil }.compactMap(\.signal)
        let interval = try SessionAnalyzer(configuration: .init(sampleRate: 16000)).frameInterval
        XCTAssertGreaterThan(named.count, Int((0.3 / interval).rounded()), "more than 0.3 s named")
        XCTAssertGreaterThan(Double(named.filter { $0 == .tooQuiet }.count), 0.8 * Double(named.count))
        let fine = try analyse(quiet, sampleRate: 16000)
        for (coarse, clear) in zip(try XCTUnwrap(rounded.report).breaths, try XCTUnwrap(fine.report).breaths) {
            XCTAssertLessThan(try XCTUnwrap(coarse.signal?.snrDB), 10, "breath \(coarse.index)")
            XCTAssertGreaterThan(try XCTUnwrap(clear.signal?.snrDB), 30, "breath \(clear.index)")
        }
    }

    func testFramesAndEventsAreTheSameWhateverTheChunkSplit() throws {
        let session = TestSession(sampleRate: 8000, sets: 1, breathsPerSet: 2)
        let whole = try analyse(session.samples, sampleRate: 8000)
        XCTAssertEqual(whole.report?.summary.breathCount, 2)
        for chunk in [1, 333, 8000] {
            let split = try analyse(session.samples, sampleRate: 8000, chunk: chunk)
            XCTAssertEqual(split.frames, whole.frames, "chunk \(chunk)")
            XCTAssertEqual(split.events, whole.events, "chunk \(chunk)")
            XCTAssertEqual(split.report, whole.report, "chunk \(chunk)")
        }
    }

    func testFramesAreRegularAndPitchOnlyWhileExhaling() throws {
        let session = TestSession(sampleRate: 16000, sets: 1, breathsPerSet: 3)
        let run = try analyse(session.samples, sampleRate: 16000)
        let spacing = zip(run.frames.dropFirst(), run.frames).map { $0.time - $1.time }
        XCTAssertEqual(spacing.min() ?? 0, spacing.max() ?? 1, accuracy: 1e-9)
        XCTAssertLessThanOrEqual(spacing.max() ?? 1, 0.1)
        for frame in run.frames {
            if frame.pitch != nil { XCTAssertTrue(frame.exhaling) }
            XCTAssertEqual(frame.pressure == nil, frame.pitch == nil)
            XCTAssertEqual(frame.zone == nil, frame.pitch == nil)
            XCTAssertTrue((0...1).contains(frame.confidence))
        }
        let outside = run.frames.filter { frame in !session.exhalations.contains { frame.time >= $0.start && frame.time <= $0.end } }
        let falseReports = outside.filter { $0.pitch != nil }.count
        XCTAssertLessThanOrEqual(Double(falseReports) / Double(outside.count), 0.01)
    }

    func testLiveFramesComeAtOnceAndAgreeWithTheFinalOnes() throws {
        let session = TestSession(sampleRate: 16000, sets: 1, breathsPerSet: 2)
        let run = try analyse(session.samples, sampleRate: 16000, chunk: 1600)
        XCTAssertEqual(run.live.map(\.time), run.frames.map(\.time))
        let configuration = SessionAnalyzer.Configuration(sampleRate: 16000)
        let analyzer = try SessionAnalyzer(configuration: configuration)
        let framesAhead = Int(((analyzer.latency - (try FlutterPitchTracker(configuration: configuration.tracker)).latency) / analyzer.frameInterval).rounded())
        XCTAssertEqual(run.liveBeforeFinal.dropLast(framesAhead).max(), framesAhead)
        let raw = try analyse(session.samples, sampleRate: 16000, chunk: 1600) { $0.pitchAverageTime = 0 }
        XCTAssertEqual(raw.live, run.live, "the stored frames' average does not touch the live ones")
        for (live, final) in zip(raw.live, raw.frames) where final.pitch != nil {
            XCTAssertEqual(live.pitch, final.pitch)
            XCTAssertEqual(live.pressure, final.pressure)
        }
        let exhaling = zip(run.live, run.frames).filter { $0.1.exhaling }
        XCTAssertGreaterThan(Double(exhaling.filter { $0.0.pitch != nil }.count) / Double(exhaling.count), 0.9)
    }

    /// At each breath's start the live frames show the flutter once two estimates agree, about
    /// 80 ms before the tracker reports it; the stored frames, the events and the report are
    /// those of a gauge that waits (`earlyGaugeTime` 0), and only a sound's first 0.6 s gains.
    func testTheLiveGaugeShowsAFlutterAsItStarts() throws {
        let session = TestSession(sampleRate: 16000, sets: 1, breathsPerSet: 3)
        let early = try analyse(session.samples, sampleRate: 16000, chunk: 1600)
        let waiting = try analyse(session.samples, sampleRate: 16000, chunk: 1600) { $0.earlyGaugeTime = 0 }
        XCTAssertEqual(early.frames, waiting.frames)
        XCTAssertEqual(early.events, waiting.events)
        XCTAssertEqual(early.report, waiting.report)
        let latency = try SessionAnalyzer(configuration: .init(sampleRate: 16000)).latency
        for exhalation in session.exhalations {
            func firstPitch(_ run: Run) throws -> SessionFrame {
                try XCTUnwrap(run.live.first { $0.pitch != nil && $0.time >= exhalation.start - 0.5 && $0.time < exhalation.end })
            }
            let shown = try firstPitch(early), reported = try firstPitch(waiting)
            XCTAssertLessThanOrEqual(shown.time, reported.time - 0.05, "breath at \(exhalation.start) s")
            XCTAssertEqual(try XCTUnwrap(shown.pitch), exhalation.pitch, accuracy: 0.1 * exhalation.pitch)
            XCTAssertEqual(shown.pressure, DeviceProfile.acapella.pressure(forPitch: shown.pitch!))
        }
        let gained = zip(early.live, waiting.live).filter { $0.0.pitch != nil && $0.1.pitch == nil }.map(\.0.time)
        XCTAssertFalse(gained.isEmpty)
        for time in gained {
            XCTAssertTrue(
                session.exhalations.contains { time >= $0.start - latency && time <= $0.start + 0.6 },
                "a pitch shown early at \(time) s, not at a breath's start")
        }
    }

    /// A stored frame's pitch is the live pitches' average over ±0.1 s, taken in pairs either side
    /// while both stay within 12 % of the frame's own (a plain reference; the live frames show
    /// the tracker's pitch as it is reported when they do not show a track early).
    func testStoredFramesAverageTheLivePitchEvenlyAroundThem() throws {
        let session = TestSession(sampleRate: 16000, sets: 1, breathsPerSet: 2)
        let run = try analyse(session.samples, sampleRate: 16000, chunk: 777) { $0.earlyGaugeTime = 0 }
        let pitches = run.live.map(\.pitch)
        let reach = Int((0.1 / (try SessionAnalyzer(configuration: .init(sampleRate: 16000))).frameInterval).rounded())
        var averaged = 0
        for (index, final) in run.frames.enumerated() where final.pitch != nil {
            let centre = try XCTUnwrap(pitches[index])
            var values = [centre]
            for offset in 1...reach {
                guard index - offset >= 0, index + offset < pitches.count,
                    let before = pitches[index - offset], let after = pitches[index + offset],
                    abs(before - centre) <= 0.12 * centre, abs(after - centre) <= 0.12 * centre
                else { break }
                values += [before, after]
            }
            if values.count > 1 { averaged += 1 }
            XCTAssertEqual(try XCTUnwrap(final.pitch), values.reduce(0, +) / Double(values.count), accuracy: 1e-9, "frame \(index)")
            XCTAssertEqual(try XCTUnwrap(final.pressure), DeviceProfile.acapella.pressure(forPitch: final.pitch!), accuracy: 1e-9)
        }
        XCTAssertGreaterThan(averaged, 100)
    }

    func testEventsComeInOrderAndMatchTheReport() throws {
        let session = TestSession(sampleRate: 16000, sets: 2, breathsPerSet: 2)
        let run = try analyse(session.samples, sampleRate: 16000)
        let report = try XCTUnwrap(run.report)
        XCTAssertEqual(run.events.filter { $0.kind == .breathStarted }.count, report.breaths.count)
        XCTAssertEqual(run.events.filter { $0.kind == .breathEnded }.map(\.breath), report.breaths.map(\.index))
        XCTAssertEqual(run.events.filter { $0.kind == .setEnded }.map(\.set), report.sets.map(\.index))
        XCTAssertEqual(run.events.filter { $0.kind == .huffCough }.count, report.summary.huffCoughCount)
        XCTAssertEqual(run.events.filter { $0.kind == .breathStarted }.map(\.breathInSet), [1, 2, 1, 2])
        XCTAssertEqual(run.events.filter { $0.kind == .breathEnded }.map(\.breathInSet), [1, 2, 1, 2])
        XCTAssertEqual(run.events.filter { $0.kind == .setEnded || $0.kind == .huffCough }.compactMap(\.breathInSet), [])
        let kinds = run.events.map(\.kind)
        XCTAssertEqual(kinds.first, .breathStarted)
        XCTAssertEqual(kinds.filter { $0 != .huffCough }.last, .setEnded)
        let huffs = run.events.filter { $0.kind == .huffCough }
        XCTAssertEqual(huffs.map(\.set), [1, 1, 2, 2])
        XCTAssertEqual(zip(huffs.map(\.time), session.huffs).map { abs($0 - $1) < 0.1 }, [true, true, true, true])
    }

    func testSpeechDoorAndBreathNoiseStartNoBreath() throws {
        let rate = 16000.0
        var door = [Float](repeating: 0, count: Int(rate))
        var rng = SeededGenerator(seed: 9)
        for i in 0..<Int(0.08 * rate) { door[i] = Float(0.5 * exp(-Double(i) / (0.01 * rate)) * rng.gaussian()) }
        let cases: [(String, [Float])] = [
            ("speech", TestSignals.speechLike(sampleRate: rate, duration: 8, rms: 0.05)),
            ("door", door + TestSignals.noise(sampleRate: rate, duration: 1, rms: 0.001)),
            ("inhalation noise", TestSignals.noise(sampleRate: rate, duration: 1.2, rms: 0.01)),
        ]
        for (name, sound) in cases {
            let signal = TestSignals.noise(sampleRate: rate, duration: 2, rms: 0.001) + sound + TestSignals.noise(sampleRate: rate, duration: 2, rms: 0.001)
            let run = try analyse(signal, sampleRate: rate)
            XCTAssertEqual(run.report?.summary.breathCount, 0, name)
            XCTAssertFalse(run.frames.contains { $0.pitch != nil }, name)
        }
    }

    /// A fan beating at 14 Hz all along, 0.3 deep (read about 0.42) or 0.15: a breath taken
    /// without the device is no breath, and the patient is told to breathe out through the device,
    /// not that the phone is too far (the fan's period is no sign of a device), while the device's
    /// breaths count, one of them at the fan's own rate.
    func testARoomThatBeatsInTheBandMakesNoBreathOfPlainBreath() throws {
        for depth in [0.3, 0.15] {
            try checkPlainBreath(besideAFanBeating: depth)
        }
    }

    private func checkPlainBreath(besideAFanBeating depth: Double) throws {
        let rate = 16000.0
        var rng = SeededGenerator(seed: 21)
        func fan(_ seconds: Double, from start: Double) -> [Float] {
            (0..<Int(seconds * rate)).map { n in
                let t = start + Double(n) / rate
                return Float(0.002 * (1 + depth * sin(2 * .pi * 14 * t)) * rng.gaussian())
            }
        }
        func ramped(_ x: [Float]) -> [Float] {
            let ramp = Int(0.1 * rate)
            return x.indices.map { i in x[i] * Float(min(1, Double(min(i, x.count - 1 - i)) / Double(ramp))) }
        }
        var plain = [Float](repeating: 0, count: Int(2.5 * rate))
        var low = 0.0, lower = 0.0
        for i in plain.indices {
            low += 0.1 * (rng.gaussian() - low)
            lower += 0.1 * (low - lower)
            plain[i] = Float(0.15 * lower)
        }
        let sounds: [(name: String, samples: [Float])] = [
            ("plain", ramped(plain)),
            ("device at 14 Hz", ramped(TestSignals.flutter(sampleRate: rate, duration: 3, pitch: { _ in 14 }, seed: 4, amplitude: 0.02))),
            ("device at 20 Hz", ramped(TestSignals.flutter(sampleRate: rate, duration: 3, pitch: { _ in 20 }, seed: 5, amplitude: 0.02))),
        ]
        var signal: [Float] = []
        var spans: [(name: String, start: Double, end: Double)] = []
        for sound in sounds {
            signal += fan(4, from: Double(signal.count) / rate)
            let start = Double(signal.count) / rate
            let room = fan(Double(sound.samples.count) / rate, from: start)
            signal += zip(sound.samples, room).map { $0 + $1 }
            spans.append((sound.name, start, Double(signal.count) / rate))
        }
        signal += fan(4, from: Double(signal.count) / rate)
        let run = try analyse(signal, sampleRate: rate)
        let breaths = run.report?.breaths ?? []
        for span in spans {
            let found = breaths.filter { $0.start < span.end && $0.end > span.start }.count
            XCTAssertEqual(found, span.name == "plain" ? 0 : 1, "\(span.name), fan \(depth) deep")
        }
        XCTAssertEqual(breaths.count, 2, "fan \(depth) deep")
        let withoutDevice = try XCTUnwrap(spans.first)
        let warned = run.frames.filter { $0.time > withoutDevice.start && $0.time < withoutDevice.end }.compactMap(\.warning)
        XCTAssertTrue(warned.contains(.noFlutter), "the breath without the device is told to breathe out through it beside a fan \(depth) deep: \(Set(warned))")
        XCTAssertFalse(warned.contains(.tooFar), "a fan \(depth) deep is no flutter heard from too far")
    }

    func testBackgroundSpeechAndMusicDoNotChangeTheCount() throws {
        let rate = 16000.0
        for (name, level) in [("speech", 0.005), ("music", 0.005)] {
            let session = TestSession(sampleRate: rate, sets: 1, breathsPerSet: 4)
            let duration = Double(session.samples.count) / rate
            let background = name == "speech"
                ? TestSignals.speechLike(sampleRate: rate, duration: duration, rms: level)
                : TestSignals.musicLike(sampleRate: rate, duration: duration, rms: level)
            var signal = session.samples
            for i in signal.indices { signal[i] += background[i] }
            let run = try analyse(signal, sampleRate: rate)
            XCTAssertEqual(run.report?.summary.breathCount, 4, name)
            let outside = run.frames.filter { frame in !session.exhalations.contains { frame.time >= $0.start && frame.time <= $0.end } }
            XCTAssertLessThanOrEqual(Double(outside.filter { $0.pitch != nil }.count) / Double(outside.count), 0.01, name)
        }
    }

    func testFixedNoiseFloorAndTargetAreHonoured() throws {
        let session = TestSession(sampleRate: 16000, sets: 1, breathsPerSet: 4, pitches: [12, 16, 20, 24])
        let run = try analyse(session.samples, sampleRate: 16000) { configuration in
            configuration.detector.noiseFloorDB = -50
            configuration.target = TargetRange(lowerCmH2O: 12, upperCmH2O: 18)
        }
        let report = try XCTUnwrap(run.report)
        XCTAssertEqual(report.summary.breathCount, 4)
        let shares = try XCTUnwrap(report.summary.zoneShares)
        XCTAssertEqual(shares.below, 0.25, accuracy: 0.03, "12 Hz is 8.8 cmH2O")
        XCTAssertEqual(shares.within, 0.5, accuracy: 0.03, "16 and 20 Hz are 13.2 and 17.7 cmH2O")
        XCTAssertEqual(shares.above, 0.25, accuracy: 0.03, "24 Hz is 22.2 cmH2O")
        XCTAssertEqual(shares.below + shares.within + shares.above, 1, accuracy: 1e-9)
    }

    func testAFloorAboveTheBreathsHearsNothing() throws {
        let session = TestSession(sampleRate: 16000, sets: 1, breathsPerSet: 2)
        let run = try analyse(session.samples, sampleRate: 16000) { $0.detector.noiseFloorDB = -3 }
        XCTAssertEqual(run.report?.summary.breathCount, 0)
    }

    func testInvalidConfigurationNamesTheParameter() {
        var configuration = SessionAnalyzer.Configuration(sampleRate: 44100)
        configuration.setPause = 0
        XCTAssertThrowsError(try SessionAnalyzer(configuration: configuration)) { error in
            XCTAssertEqual((error as? EngineConfigurationError)?.parameter, "setPause")
        }
        configuration = SessionAnalyzer.Configuration(sampleRate: 44100)
        configuration.detector.offMarginDB = 12
        XCTAssertThrowsError(try SessionAnalyzer(configuration: configuration)) { error in
            XCTAssertEqual((error as? EngineConfigurationError)?.parameter, "offMarginDB")
        }
    }
}
