import Foundation
import OPEPCalibration
import OPEPKit
import XCTest

final class CalibrationTests: XCTestCase {
    /// pressure = -3 + 1.3 × pitch + N(0, σ²), pitch uniform on 10-30 Hz. The expected r² is
    /// slope² var(pitch) / (slope² var(pitch) + σ²) = 1.69 × 33.3 / (1.69 × 33.3 + 1) = 0.9826.
    func testLeastSquaresRecoversTheLine() throws {
        var noise = GaussianNoise(state: 7)
        let sigma = 1.0, n = 5000
        var pitches: [Double] = [], pressures: [Double] = []
        for _ in 0..<n {
            let pitch = 10 + 20 * noise.uniform()
            pitches.append(pitch)
            pressures.append(-3 + 1.3 * pitch + sigma * noise.next())
        }
        let fit = try LineFit(x: pitches, y: pressures)
        let varianceX = 400.0 / 12
        let expectedR2 = 1.69 * varianceX / (1.69 * varianceX + sigma * sigma)
        // Standard errors: slope σ/√(n var x) ≈ 0.0024, intercept ≈ 0.05; tolerances are ~5 of them.
        XCTAssertEqual(fit.slope, 1.3, accuracy: 0.015)
        XCTAssertEqual(fit.intercept, -3, accuracy: 0.3)
        XCTAssertEqual(fit.rSquared, expectedR2, accuracy: 0.004)
        XCTAssertEqual(fit.residualStandardDeviation, sigma, accuracy: 0.05)
        XCTAssertEqual(fit.count, n)
    }

    func testPairsInterpolateAndSkipGapsAndOutside() throws {
        let manometer = try ManometerTrace(times: [0, 0.05, 0.1, 0.5, 0.55], pressures: [0, 10, 20, 30, 40])
        let pairs = Calibration.pairs(
            pitches: [PitchSample(time: 1.025, pitch: 12), PitchSample(time: 1.3, pitch: 13), PitchSample(time: 1.525, pitch: 14), PitchSample(time: 2, pitch: 15)],
            manometer: manometer, offset: 1)
        XCTAssertEqual(pairs.map(\.pitch), [12, 14])
        XCTAssertEqual(pairs[0].pressure, 5, accuracy: 1e-9)
        XCTAssertEqual(pairs[1].pressure, 35, accuracy: 1e-9)
    }

    /// Breaths of 3-5 s every 7-10 s; the manometer runs 2.5 s late (offset +2.5).
    func testAutoAlignmentFindsAShiftedManometer() throws {
        var noise = GaussianNoise(state: 3)
        var breaths: [ClosedRange<Double>] = []
        var t = 3.0
        while t < 100 {
            let length = 3 + 2 * noise.uniform()
            breaths.append(t...(t + length))
            t += length + 3 + 3 * noise.uniform()
        }
        let envelope = stride(from: 0.0, through: 110, by: 0.0102).map { time in
            (time: time, value: breaths.contains { $0.contains(time) } ? 1.0 : 0.0)
        }
        let shift = 2.5
        var times: [Double] = [], pressures: [Double] = []
        for time in stride(from: -5.0, through: 120, by: 0.01) {
            times.append(time)
            let recordingTime = time + shift
            pressures.append(breaths.contains { $0.contains(recordingTime) } ? 12 + noise.next() : 0.3 * noise.next())
        }
        let manometer = try ManometerTrace(times: times, pressures: pressures)
        let found = try OffsetSearch.find(envelope: envelope, manometer: manometer, threshold: 5)
        XCTAssertEqual(found.offset, shift, accuracy: 0.05)
        XCTAssertGreaterThan(found.score, 0.9)
    }

    func testCSVParsing() throws {
        let trace = try ManometerTrace.parse(csv: "note,pressure_cmh2o,time_s\r\nx,1.5,0\r\ny,2.5,0.01\n\n")
        XCTAssertEqual(trace.times, [0, 0.01])
        XCTAssertEqual(trace.pressures, [1.5, 2.5])
        XCTAssertEqual(trace.pressure(at: 0.005) ?? .nan, 2, accuracy: 1e-9)
        XCTAssertNil(trace.pressure(at: 0.02))
    }

    func testCSVErrors() {
        func error(_ text: String) -> CalibrationError? {
            do { _ = try ManometerTrace.parse(csv: text); return nil } catch { return error }
        }
        XCTAssertEqual(error(""), .empty)
        XCTAssertEqual(error("\n\n"), .empty)
        XCTAssertEqual(error("0,1\n1,2\n"), .missingHeader(found: "0,1"))
        XCTAssertEqual(error("time_s,pressure\n0,1\n"), .missingColumn("pressure_cmh2o"))
        XCTAssertEqual(error("time_s,pressure_cmh2o\n"), .tooFewSamples(0))
        XCTAssertEqual(error("time_s,pressure_cmh2o\n0,1\n"), .tooFewSamples(1))
        XCTAssertEqual(error("time_s,pressure_cmh2o\n0,1\n0.1,abc\n"), .malformedRow(line: 3, reason: "pressure 'abc' is not a number"))
        XCTAssertEqual(error("time_s,pressure_cmh2o\n0,1\n0.1\n"), .malformedRow(line: 3, reason: "1 field, expected at least 2"))
        XCTAssertEqual(error("time_s,pressure_cmh2o\n0,1\n0.1,2\n0.1,3\n"), .nonIncreasingTime(line: 4, time: 0.1, previous: 0.1))
        XCTAssertTrue(error("time_s,pressure_cmh2o\n0,1\n0.1,x\n")!.description.hasPrefix("line 3:"))
        XCTAssertEqual(error("time_s,pressure_cmh2o\n0,1\n1e300,2\n"), .timeOutOfRange(line: 3, time: 1e300, limit: ManometerTrace.largestTime))
        XCTAssertEqual(error("time_s,pressure_cmh2o\n0,1\n1e7,2\n"), .traceTooLong(duration: 1e7, limit: ManometerTrace.longestDuration))
        XCTAssertNil(error("time_s,pressure_cmh2o\n1764000000,1\n1764014400,2\n"), "four hours of a clock's seconds since 1970")
        XCTAssertEqual(
            error("time_s,pressure_cmh2o\n0,1\n1e7,2\n")?.description,
            "the manometer's trace spans 10000000.0 s, more than a calibration takes (at most 14400 s): give the part recorded with the sound")
    }

    /// Flutter frames where the manometer reads no exhalation (the tracker's span reaching past a
    /// breath's end) are not fitted: five of them per breath, paired with 0 cmH2O, bent the line.
    func testFramesOutsideTheManometersExhalationsAreNotFitted() throws {
        var times: [Double] = [], pressures: [Double] = [], pitches: [PitchSample] = []
        for breath in 0..<4 {
            let start = Double(breath) * 5
            for k in 0..<300 {
                let t = start + Double(k) * 0.01
                let pitch = 12 + 8 * Double(k) / 300 + 4 * Double(breath) / 3
                times.append(t)
                pressures.append(-3 + 1.3 * pitch)
                pitches.append(PitchSample(time: t, pitch: pitch))
            }
            for k in 0..<200 {
                times.append(start + 3 + Double(k) * 0.01)
                pressures.append(0)
            }
            for k in 0..<5 { pitches.append(PitchSample(time: start + 3 + Double(k) * 0.01, pitch: 11)) }
        }
        let manometer = try ManometerTrace(times: times, pressures: pressures)
        let bent = try Calibration.fit(
            pitches: pitches, manometer: manometer, offset: 0, recordingRange: 0...20, alignment: "given", exhaling: -.infinity)
        XCTAssertGreaterThan(abs(bent.fit.slope - 1.3), 0.03, "the edge frames should bend an unfiltered fit")
        let result = try Calibration.fit(
            pitches: pitches, manometer: manometer, offset: 0, recordingRange: 0...20, alignment: "given", exhaling: 5)
        XCTAssertEqual(result.fit.slope, 1.3, accuracy: 1e-6)
        XCTAssertEqual(result.fit.intercept, -3, accuracy: 1e-5)
        XCTAssertEqual(result.pairs.count, 1200)
    }

    func testMismatchedLengthsAndNoOverlap() throws {
        XCTAssertThrowsError(try LineFit(x: [1, 2, 3], y: [1, 2])) { XCTAssertEqual($0 as? CalibrationError, .mismatchedLengths(pitches: 3, pressures: 2)) }
        XCTAssertThrowsError(try ManometerTrace(times: [0, 1], pressures: [1])) { XCTAssertEqual($0 as? CalibrationError, .mismatchedLengths(pitches: 2, pressures: 1)) }
        XCTAssertThrowsError(try LineFit(x: [5, 5, 5, 5], y: [1, 2, 3, 4])) { XCTAssertEqual($0 as? CalibrationError, .constantPitch) }
        let manometer = try ManometerTrace(times: Array(stride(from: 0.0, to: 10, by: 0.01)), pressures: Array(repeating: 10, count: 1000))
        let pitches = (0..<500).map { PitchSample(time: Double($0) * 0.01, pitch: 15) }
        XCTAssertThrowsError(try Calibration.fit(pitches: pitches, manometer: manometer, offset: 100, recordingRange: 0...10, alignment: "given")) {
            guard case .noOverlap = $0 as? CalibrationError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try Calibration.fit(pitches: pitches, manometer: manometer, offset: 9.999, recordingRange: 0...10, alignment: "given")) {
            XCTAssertEqual($0 as? CalibrationError, .tooFewPairs(0))
        }
    }

    /// A 1 kHz pressure waveform fluttering at known rates: the tracker finds them in it.
    func testFlutterOfAPressureWaveform() throws {
        var times: [Double] = [], pressures: [Double] = []
        var phase = 0.0
        var noise = GaussianNoise(state: 11)
        let rates: [(range: ClosedRange<Double>, pitch: Double)] = [(1...4, 14), (6...9, 24), (11...14, 32)]
        for i in 0..<16000 {
            let t = Double(i) / 1000
            let pitch = rates.first { $0.range.contains(t) }?.pitch
            if let pitch { phase += 2 * .pi * pitch / 1000 }
            times.append(t)
            pressures.append((pitch.map { 8 + 0.3 * $0 + 2.5 * sin(phase) } ?? 0) + 0.2 * noise.next())
        }
        let waveform = try ManometerTrace(times: times, pressures: pressures)
        let found = try PressureFlutter.track(waveform, band: 10...40)
        let frameInterval = try FlutterPitchTracker(configuration: .init(sampleRate: PressureFlutter.audioRate)).frameInterval
        for rate in rates {
            let inside = found.filter { $0.time > rate.range.lowerBound + 0.4 && $0.time < rate.range.upperBound - 0.2 }
            XCTAssertGreaterThan(Double(inside.count), 1.5 / frameInterval, "\(rate.pitch) Hz: a pitch in 1.5 s of the 2.4")
            let errors = inside.map { abs($0.pitch - rate.pitch) }.sorted()
            XCTAssertLessThan(errors[errors.count / 2], 0.3, "\(rate.pitch) Hz")
        }
        let stray = found.filter { t in !rates.contains { $0.range.lowerBound - 0.5 <= t.time && t.time <= $0.range.upperBound + 0.3 } }
        XCTAssertEqual(stray.count, 0, "pitches outside the flutter: \(stray.prefix(5))")
        // Against itself shifted by a known offset, the agreement is perfect.
        let sound = found.map { PitchSample(time: $0.time + 1.5, pitch: $0.pitch) }
        let agreement = try XCTUnwrap(PitchAgreement.compare(sound: sound, pressure: found, offset: 1.5))
        XCTAssertEqual(agreement.count, found.count)
        XCTAssertEqual(agreement.shareWithinHalfHertz, 1)
    }
}
