import Foundation

/// The mouth pressure of one exhalation through the device, in cmH2O, as a function of the time
/// since the exhalation sound started.
///
/// The pressure rises from 0 to `onsetPressure` (just above the flutter threshold) over `attack`,
/// climbs to `plateau` over `rise`, drifts (a linear `decline` plus a slow sinusoidal wobble) and
/// falls back to 0 over the last `fall` seconds. Every piece joins the next smoothly.
public struct PressureTrajectory: Sendable, Codable, Hashable {
    /// Length of the exhalation sound in seconds.
    public var duration: Double
    /// Seconds for the pressure to reach `onsetPressure` from 0 (also the loudness attack).
    public var attack: Double
    /// Pressure at the end of the attack, in cmH2O.
    public var onsetPressure: Double
    /// Seconds from the end of the attack to the plateau.
    public var rise: Double
    /// Seconds of the final fall to 0.
    public var fall: Double
    /// Plateau pressure in cmH2O at the end of the attack, before any drift.
    public var plateau: Double
    /// Linear pressure loss from the end of the attack to the end of the exhalation, in cmH2O.
    public var decline: Double
    /// Wobble amplitude in cmH2O.
    public var wobbleAmplitude: Double
    /// Wobble frequency in Hz.
    public var wobbleFrequency: Double
    /// Wobble phase in radians.
    public var wobblePhase: Double

    /// The pressure in cmH2O at `time` seconds after the exhalation sound started (0 outside).
    public func pressure(at time: Double) -> Double {
        guard time > 0, time < duration else { return 0 }
        if time < attack {
            return onsetPressure * smoothstep(time / attack)
        }
        let sustain = sustainedPressure(at: time)
        if time > duration - fall {
            return sustain * smoothstep((duration - time) / fall)
        }
        if time < attack + rise {
            return onsetPressure + (sustain - onsetPressure) * smoothstep((time - attack) / rise)
        }
        return sustain
    }

    private func sustainedPressure(at time: Double) -> Double {
        plateau - decline * (time - attack) / (duration - attack)
            + wobbleAmplitude * sin(2 * Double.pi * wobbleFrequency * time + wobblePhase)
    }

    /// A random trajectory for an exhalation of `duration` seconds whose plateau is `plateau`,
    /// staying at least 0.25 cmH2O above `threshold` (where the rocker stops) between its onset
    /// and its fall.
    /// `attacks` and `falls` are the ranges the attack and the fall are drawn from.
    init(
        duration: Double, plateau: Double, threshold: Double, attacks: ClosedRange<Double> = 0.05...0.1,
        falls: ClosedRange<Double> = 0.1...0.2, using generator: inout SeededGenerator
    ) {
        self.duration = duration
        self.plateau = plateau
        attack = generator.uniform(attacks)
        onsetPressure = threshold + generator.uniform(0.3...0.9)
        rise = generator.uniform(0.15...0.3)
        fall = generator.uniform(falls)
        let headroom = plateau - threshold - 0.25
        wobbleAmplitude = min(generator.uniform(0.2...0.8), headroom / 2)
        wobbleFrequency = generator.uniform(0.2...0.6)
        wobblePhase = generator.uniform(0...(2 * Double.pi))
        decline = min(generator.uniform(0...3), headroom - wobbleAmplitude)
    }

    /// The first time (within the attack) and the last time (within the fall) at which the pressure
    /// reaches `level`, which must lie between 0 and the sustained pressure.
    func crossings(of level: Double) -> (first: Double, last: Double) {
        let first = bisect(from: 0, to: attack) { pressure(at: $0) >= level }
        let last = bisect(from: duration, to: duration - fall) { pressure(at: $0) >= level }
        return (first, last)
    }

    /// The point closest to `inside` where `isInside` switches, given it is false at `outside`.
    private func bisect(from outside: Double, to inside: Double, _ isInside: (Double) -> Bool) -> Double {
        var outside = outside
        var inside = inside
        for _ in 0..<64 {
            let middle = (outside + inside) / 2
            if middle == outside || middle == inside { break }
            if isInside(middle) { inside = middle } else { outside = middle }
        }
        return inside
    }
}
