import Foundation
import OPEPKit

/// The flutter of a fast-sampled pressure waveform (a manometer at ~1 kHz), tracked with the same
/// ``FlutterPitchTracker`` that listens to the sound.
///
/// The tracker follows the *envelope* of broadband sound: it high-passes at 100 Hz, squares and
/// averages. A pressure waveform oscillating at 10-40 Hz would be removed by that high-pass, so it
/// is not fed in directly. Instead the pressure's oscillation is made into the envelope of an
/// audio-rate carrier: the waveform is interpolated to `audioRate`, its slow mean (a centred
/// 0.1 s moving average, nulls at 10, 20, 30 and 40 Hz) is removed, the rest is scaled by its
/// local RMS and amplitude-modulates a tone at a quarter of the rate (whose squares average to a
/// constant over any 4 samples, so the tracker's energy is exactly the modulation). Outside
/// exhalations (mean pressure below `threshold`) the carrier is faint and unmodulated. The tracker then sees
/// what it is built for, with its usual settings, so both pitches come from one algorithm. Only
/// the pitches it heard are kept, not those it held through a gap: a manometer has no gaps to bridge.
public enum PressureFlutter {
    public static let audioRate = 8000.0

    public static func track(
        _ waveform: ManometerTrace, band: ClosedRange<Double>, threshold: Double = 2
    ) throws -> [PitchSample] {
        let mean = waveform.smoothed(window: 0.1)
        var residual = zip(waveform.pressures, mean.pressures).map { $0 - $1 }
        // Local RMS of the oscillation over 0.1 s.
        let squares = try ManometerTrace(times: waveform.times, pressures: residual.map { $0 * $0 }).smoothed(window: 0.1)
        for i in residual.indices {
            let rms = squares.pressures[i].squareRoot()
            residual[i] = rms > 1e-9 ? max(-1, min(1, residual[i] / (2 * rms))) : 0
        }
        let depth = try ManometerTrace(times: waveform.times, pressures: residual)
        var tracker = try FlutterPitchTracker(configuration: .init(sampleRate: audioRate, lowerFrequency: band.lowerBound, upperFrequency: band.upperBound))
        let start = waveform.timeRange.lowerBound
        let total = Int(((waveform.timeRange.upperBound - start) * audioRate).rounded(.down)) + 1
        var samples: [Float] = []
        samples.reserveCapacity(4096)
        var pitches: [PitchSample] = []
        var n = 0
        var index = 0
        let carrier: [Float] = [0.7071, 0.7071, -0.7071, -0.7071]
        while n < total {
            samples.removeAll(keepingCapacity: true)
            let end = min(n + 4096, total)
            while n < end {
                let t = start + Double(n) / audioRate
                while index + 1 < waveform.times.count, waveform.times[index + 1] <= t { index += 1 }
                let next = min(index + 1, waveform.times.count - 1)
                let t0 = waveform.times[index], t1 = waveform.times[next]
                let f = t1 > t0 ? (t - t0) / (t1 - t0) : 0
                let m = mean.pressures[index] + f * (mean.pressures[next] - mean.pressures[index])
                let d = depth.pressures[index] + f * (depth.pressures[next] - depth.pressures[index])
                // Outside exhalations a faint, unmodulated carrier: nothing for the tracker to find
                // (its acceptance does not depend on the level, so the modulation must go too).
                let open = m > threshold && t1 - t0 <= Calibration.maxGap
                let amplitude = open ? 0.5 * (1 + 0.8 * d) : 0.0005
                samples.append(Float(amplitude) * carrier[n & 3])
                n += 1
            }
            tracker.process(samples) { frame in
                if let pitch = frame.pitch, frame.confidence > 0 { pitches.append(PitchSample(time: start + frame.time, pitch: pitch)) }
            }
        }
        return pitches
    }
}

/// How closely the sound's pitch follows the pressure's.
public struct PitchAgreement: Sendable, Hashable, Codable {
    /// Frames with both pitches.
    public var count: Int
    /// Median of |sound - pressure| in Hz.
    public var medianAbsoluteDifference: Double
    /// Median of sound - pressure in Hz (a bias).
    public var medianDifference: Double
    /// Share of frames whose pitches are within 0.5 Hz.
    public var shareWithinHalfHertz: Double

    enum CodingKeys: String, CodingKey {
        case count = "n", medianAbsoluteDifference = "median_abs_difference_hz", medianDifference = "median_difference_hz"
        case shareWithinHalfHertz = "share_within_0_5_hz"
    }

    /// Pairs each sound frame with the pressure frame nearest in time (manometer time + offset),
    /// no further than `tolerance` seconds away.
    public static func compare(sound: [PitchSample], pressure: [PitchSample], offset: Double, tolerance: Double = 0.006) -> PitchAgreement? {
        guard !pressure.isEmpty else { return nil }
        let times = pressure.map { $0.time + offset }
        var differences: [Double] = []
        for sample in sound {
            var low = 0, high = times.count
            while low < high {
                let middle = (low + high) / 2
                if times[middle] < sample.time { low = middle + 1 } else { high = middle }
            }
            var nearest: Int?
            for candidate in [low - 1, low] where candidate >= 0 && candidate < times.count {
                if abs(times[candidate] - sample.time) <= tolerance, nearest.map({ abs(times[candidate] - sample.time) < abs(times[$0] - sample.time) }) ?? true {
                    nearest = candidate
                }
            }
            if let nearest { differences.append(sample.pitch - pressure[nearest].pitch) }
        }
        guard !differences.isEmpty else { return nil }
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }
        let absolute = differences.map(abs)
        return PitchAgreement(
            count: differences.count, medianAbsoluteDifference: median(absolute), medianDifference: median(differences),
            shareWithinHalfHertz: Double(absolute.filter { $0 <= 0.5 }.count) / Double(differences.count))
    }
}
