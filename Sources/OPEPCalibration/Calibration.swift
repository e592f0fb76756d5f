import Foundation
import OPEPKit

/// A flutter pitch heard at a moment of the recording.
public struct PitchSample: Sendable, Hashable {
    /// Seconds from the start of the recording.
    public var time: Double
    /// Hz.
    public var pitch: Double

    public init(time: Double, pitch: Double) {
        self.time = time
        self.pitch = pitch
    }
}

/// A pitch frame and the manometer's pressure at the same moment.
public struct CalibrationPair: Sendable, Hashable {
    /// Recording time, seconds.
    public var time: Double
    public var pitch: Double
    public var pressure: Double
}

/// The fitted pitch-to-pressure line of a device and how it was obtained.
public struct CalibrationResult: Sendable {
    public var fit: LineFit
    /// Seconds added to the manometer's times to put them on the recording's clock.
    public var offset: Double
    /// How the offset was found ("given" or "auto").
    public var alignment: String
    /// Normalised cross-correlation at the chosen offset (auto alignment), 0-1.
    public var alignmentScore: Double?
    public var pairs: [CalibrationPair]

    /// The device profile with this line and `band`.
    public func profile(name: String, band: ClosedRange<Double>) -> DeviceProfile {
        DeviceProfile(name: name, lowerFrequency: band.lowerBound, upperFrequency: band.upperBound, interceptCmH2O: fit.intercept, slopeCmH2OPerHz: fit.slope)
    }
}

/// Fitting `pressure = intercept + slope × pitch` from a recording's pitch frames and a manometer.
///
/// Clocks: the manometer's time `t` is the recording's time `t + offset`. `--offset 2.5` means the
/// manometer started 2.5 s after the recording.
public enum Calibration {
    /// Largest gap between manometer samples bridged by interpolation, in seconds.
    public static let maxGap = 0.1

    /// Pairs each pitch frame with the manometer's pressure at its time; frames outside the
    /// manometer's trace or in a gap longer than ``maxGap`` are skipped.
    public static func pairs(pitches: [PitchSample], manometer: ManometerTrace, offset: Double) -> [CalibrationPair] {
        pitches.compactMap { sample in
            manometer.pressure(at: sample.time - offset, maxGap: maxGap).map {
                CalibrationPair(time: sample.time, pitch: sample.pitch, pressure: $0)
            }
        }
    }

    /// Pairs and fits. `recordingRange` is the span of the recording, to tell "no overlap" apart
    /// from "no flutter where they overlap". Pairs where the manometer reads `exhaling` cmH2O or
    /// less are left out: the manometer says the breath has not begun or is over, so a flutter
    /// heard then is the tracker's 0.25 s span reaching past the breath's edge (a few frames per
    /// breath, each paired with a pressure near 0, which bent the line by 2-3 %).
    public static func fit(
        pitches: [PitchSample], manometer: ManometerTrace, offset: Double, recordingRange: ClosedRange<Double>,
        alignment: String, alignmentScore: Double? = nil, exhaling: Double = 0
    ) throws(CalibrationError) -> CalibrationResult {
        let shifted = (manometer.timeRange.lowerBound + offset)...(manometer.timeRange.upperBound + offset)
        guard shifted.overlaps(recordingRange) else {
            throw .noOverlap(recording: recordingRange, manometer: manometer.timeRange, offset: offset)
        }
        let pairs = pairs(pitches: pitches, manometer: manometer, offset: offset).filter { $0.pressure > exhaling }
        guard pairs.count >= 10 else { throw .tooFewPairs(pairs.count) }
        let fit = try LineFit(x: pairs.map(\.pitch), y: pairs.map(\.pressure))
        return CalibrationResult(fit: fit, offset: offset, alignment: alignment, alignmentScore: alignmentScore, pairs: pairs)
    }
}

/// Finds the manometer's clock offset by cross-correlating exhalation envelopes: the recording's
/// "exhaling" (0/1 per frame) against "the manometer's pressure is above a threshold" (0/1).
public enum OffsetSearch {
    public struct Result: Sendable, Hashable {
        /// Seconds to add to the manometer's times.
        public var offset: Double
        /// Normalised correlation of the two envelopes at that offset (1 = identical).
        public var score: Double
    }

    /// Searches offsets within ±`maxLag` seconds on a `resolution` grid (10 ms by default) and
    /// refines the best one by parabolic interpolation.
    ///
    /// - Parameters:
    ///   - envelope: the recording's exhalation envelope as (time, 0-1) in time order, e.g. one
    ///     point per analysis frame.
    public static func find(
        envelope: [(time: Double, value: Double)], manometer: ManometerTrace, threshold: Double,
        maxLag: Double = 30, resolution: Double = 0.01
    ) throws(CalibrationError) -> Result {
        guard let first = envelope.first, let last = envelope.last else { throw .tooFewPairs(0) }
        // Both envelopes on one grid of k × resolution seconds.
        let r0 = Int((first.time / resolution).rounded(.up)), r1 = Int((last.time / resolution).rounded(.down))
        guard r1 > r0 else { throw .tooFewPairs(0) }
        var recording = [Double](repeating: 0, count: r1 - r0 + 1)
        var cursor = 0
        for k in r0...r1 {
            let t = Double(k) * resolution
            while cursor + 1 < envelope.count, envelope[cursor + 1].time <= t { cursor += 1 }
            recording[k - r0] = envelope[cursor].value
        }
        let m0 = Int((manometer.timeRange.lowerBound / resolution).rounded(.up))
        let m1 = Int((manometer.timeRange.upperBound / resolution).rounded(.down))
        guard m1 > m0 else { throw .tooFewSamples(manometer.times.count) }
        var above = [Double](repeating: 0, count: m1 - m0 + 1)
        var index = 0
        for k in m0...m1 {
            let t = Double(k) * resolution
            while index + 1 < manometer.times.count, manometer.times[index + 1] <= t { index += 1 }
            let next = min(index + 1, manometer.times.count - 1)
            let t0 = manometer.times[index], t1 = manometer.times[next]
            let p = t1 > t0 ? manometer.pressures[index] + (t - t0) / (t1 - t0) * (manometer.pressures[next] - manometer.pressures[index]) : manometer.pressures[index]
            above[k - m0] = (t1 - t0 <= Calibration.maxGap || next == index) && p > threshold ? 1 : 0
        }
        // Zero-mean envelopes, so that the score measures agreement and not mere overlap.
        let recordingMean = recording.reduce(0, +) / Double(recording.count)
        let aboveMean = above.reduce(0, +) / Double(above.count)
        let rc = recording.map { $0 - recordingMean }, ac = above.map { $0 - aboveMean }
        let energy = (rc.reduce(0) { $0 + $1 * $1 } * ac.reduce(0) { $0 + $1 * $1 }).squareRoot()
        guard energy > 0 else { throw .tooFewPairs(0) }
        let lags = Int((maxLag / resolution).rounded())
        var scores = [Double](repeating: 0, count: 2 * lags + 1)
        rc.withUnsafeBufferPointer { r in
            ac.withUnsafeBufferPointer { a in
                for lag in -lags...lags {
                    // Recording grid k pairs with manometer grid k - lag (offset = lag × resolution).
                    let kLow = max(r0, m0 + lag), kHigh = min(r1, m1 + lag)
                    guard kHigh >= kLow else { continue }
                    var sum = 0.0
                    var i = kLow - r0, j = kLow - lag - m0
                    for _ in kLow...kHigh {
                        sum += r[i] * a[j]
                        i += 1
                        j += 1
                    }
                    scores[lag + lags] = sum
                }
            }
        }
        var best = 0
        for i in scores.indices where scores[i] > scores[best] { best = i }
        var refined = Double(best)
        if best > 0, best < scores.count - 1 {
            let a = scores[best - 1], b = scores[best], c = scores[best + 1]
            let denominator = a - 2 * b + c
            if denominator < 0 { refined += max(-0.5, min(0.5, 0.5 * (a - c) / denominator)) }
        }
        return Result(offset: (refined - Double(lags)) * resolution, score: max(0, scores[best] / energy))
    }
}
