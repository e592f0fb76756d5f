import Foundation

/// SplitMix64: a small seeded generator, so every test signal is the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A standard normal deviate (Box-Muller).
    mutating func gaussian() -> Double {
        let u = max(Double.leastNonzeroMagnitude, Double.random(in: 0..<1, using: &self))
        let v = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}

/// Test signals built directly from their definition, independent of the engine.
enum TestSignals {
    /// Pearson correlation of `x` with itself shifted by `lag`, in `Double`, from its definition:
    /// the reference for the tracker's correlations.
    static func pearson(_ x: [Double], lag: Int) -> Double {
        let a = x[0..<(x.count - lag)], b = x[lag...]
        let n = Double(a.count)
        let meanA = a.reduce(0, +) / n, meanB = b.reduce(0, +) / n
        var covariance = 0.0, varianceA = 0.0, varianceB = 0.0
        for (u, v) in zip(a, b) {
            covariance += (u - meanA) * (v - meanB)
            varianceA += (u - meanA) * (u - meanA)
            varianceB += (v - meanB) * (v - meanB)
        }
        return covariance / (varianceA * varianceB).squareRoot()
    }

    /// `count` samples of a smoothed envelope like the tracker's: a pulse train of `period`
    /// samples starting at `phase` (or none) plus Gaussian noise, through the tracker's Gaussian
    /// (σ = 4.9 samples at 980 Hz).
    static func smoothedPulses(
        period: Double?, phase: Double = 0, noise: Double, count: Int, rng: inout SeededGenerator
    ) -> [Double] {
        let raw = (0..<(count + 40)).map { n -> Double in
            let pulse = period.map { pow((1 + cos(2 * Double.pi * Double(n) / $0 + phase)) / 2, 2) } ?? 0
            return pulse + noise * rng.gaussian()
        }
        let weights = (-15...15).map { exp(-Double($0 * $0) / (2 * 4.9 * 4.9)) }
        return (20..<(20 + count)).map { n in weights.indices.reduce(0.0) { $0 + weights[$1] * raw[n - 15 + $1] } }
    }

    /// Broadband noise amplitude-modulated at a flutter rate, as a microphone hears an OPEP
    /// device (the flutter fundamental itself absent), plus independent white noise `noiseDB`
    /// relative to the flutter sound's RMS (nil for none). Every other pulse's modulation is
    /// scaled by `everyOtherPulse` (1: all pulses alike).
    static func flutter(
        sampleRate: Double, duration: Double, pitch: (Double) -> Double,
        noiseDB: Double? = nil, seed: UInt64 = 1, amplitude: Double = 0.1, everyOtherPulse: Double = 1
    ) -> [Float] {
        var rng = SeededGenerator(seed: seed)
        let count = Int(duration * sampleRate)
        var out = [Float](repeating: 0, count: count)
        var phase = 0.0
        var odd = false
        let envelopeRMS = 0.42
        let noiseGain = noiseDB.map { pow(10, $0 / 20) * amplitude } ?? 0
        for n in 0..<count {
            let t = Double(n) / sampleRate
            let c = (1 + cos(phase)) / 2
            let envelope = 0.15 + 0.85 * (odd ? everyOtherPulse : 1) * c * c
            var x = amplitude / envelopeRMS * envelope * rng.gaussian()
            if noiseGain > 0 { x += noiseGain * rng.gaussian() }
            out[n] = Float(x)
            phase += 2 * .pi * pitch(t) / sampleRate
            if phase > 2 * .pi {
                phase -= 2 * .pi
                odd.toggle()
            }
        }
        return out
    }

    /// A buzz like a valve that opens and closes sharply: a square wave at the flutter rate
    /// through a phone microphone's high-pass (second-order Butterworth at 100 Hz), which leaves
    /// an edge of either sign per cycle, plus white noise `noiseDB` relative to the buzz's RMS.
    static func squareBuzz(
        sampleRate: Double, duration: Double, pitch: Double, noiseDB: Double, seed: UInt64 = 1, amplitude: Double = 0.1
    ) -> [Float] {
        var rng = SeededGenerator(seed: seed)
        let square = (0..<Int(duration * sampleRate)).map { n in (Double(n) * pitch / sampleRate).truncatingRemainder(dividingBy: 1) < 0.5 ? 1.0 : -1.0 }
        let w = 2 * Double.pi * 100 / sampleRate, alpha = sin(w) / (2 * 0.5.squareRoot()), c = cos(w)
        let b = [(1 + c) / 2, -(1 + c), (1 + c) / 2].map { $0 / (1 + alpha) }, a = [-2 * c, 1 - alpha].map { $0 / (1 + alpha) }
        var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0
        let buzz = square.map { x -> Double in
            let y = b[0] * x + b[1] * x1 + b[2] * x2 - a[0] * y1 - a[1] * y2
            (x2, x1, y2, y1) = (x1, x, y1, y)
            return y
        }
        let rms = (buzz.reduce(0) { $0 + $1 * $1 } / Double(max(1, buzz.count))).squareRoot()
        let noise = pow(10, noiseDB / 20) * amplitude
        return buzz.map { Float(amplitude * $0 / rms + noise * rng.gaussian()) }
    }

    /// A buzz of narrow pulses (a fifth of each cycle) made of its first 60 harmonics (up to
    /// 0.6-2.4 kHz in the band), over white noise `noiseDB` under it that the rocker modulates
    /// only `depth` deep: the pulses fill the plain energy, while whitened the sound is mostly
    /// the noise, barely modulated. The pitch is `sampleRate / period` for a whole `period` in
    /// samples.
    static func pulseBuzz(
        sampleRate: Double, duration: Double, period: Int, noiseDB: Double, depth: Double, seed: UInt64 = 1, amplitude: Double = 0.1
    ) -> [Float] {
        var rng = SeededGenerator(seed: seed)
        let harmonics = 60, duty = 0.2
        var cycle = (0..<period).map { n -> Double in
            (1...harmonics).reduce(0) { total, k in
                let x = Double.pi * duty * Double(k)
                return total + sin(x) / x * cos(2 * Double.pi * Double(k * n) / Double(period))
            }
        }
        let rms = (cycle.reduce(0) { $0 + $1 * $1 } / Double(period)).squareRoot()
        cycle = cycle.map { $0 / rms }
        let noise = pow(10, noiseDB / 20)
        return (0..<Int(duration * sampleRate)).map { n in
            let phase = 2 * Double.pi * Double(n % period) / Double(period)
            let rocker = 1 - depth * (0.5 + 0.5 * cos(phase))
            return Float(amplitude * (cycle[n % period] + noise * rocker * rng.gaussian()))
        }
    }

    /// Mains buzz: the odd harmonics of 50 Hz at 150, 250 and 350 Hz (amplitudes 1, 0.7, 0.5), as a
    /// transformer or a dimmer makes, at `rms`. It repeats every 20 ms, and is inverted 10 ms on.
    static func mainsBuzz(sampleRate: Double, duration: Double, rms: Double) -> [Float] {
        let partials = [(150.0, 1.0), (250, 0.7), (350, 0.5)]
        let scale = rms / (partials.reduce(0) { $0 + $1.1 * $1.1 } / 2).squareRoot()
        return (0..<Int(duration * sampleRate)).map { n in
            let t = Double(n) / sampleRate
            return Float(scale * partials.reduce(0) { $0 + $1.1 * sin(2 * Double.pi * $1.0 * t) })
        }
    }

    /// White noise of the given RMS.
    static func noise(sampleRate: Double, duration: Double, rms: Double, seed: UInt64 = 7) -> [Float] {
        var rng = SeededGenerator(seed: seed)
        return (0..<Int(duration * sampleRate)).map { _ in Float(rms * rng.gaussian()) }
    }

    /// Speech-like sound: a glottal pulse train at a wandering 100-220 Hz voice pitch through two
    /// formant resonators, in syllables of ~0.2 s at ~4.5 per second.
    static func speechLike(sampleRate: Double, duration: Double, rms: Double = 0.1, seed: UInt64 = 3) -> [Float] {
        var rng = SeededGenerator(seed: seed)
        let count = Int(duration * sampleRate)
        var source = [Double](repeating: 0, count: count)
        var phase = 0.0
        var syllableEnd = 0.0, syllableStart = 0.0, f0 = 140.0
        for n in 0..<count {
            let t = Double(n) / sampleRate
            if t >= syllableEnd + 0.02 {
                syllableStart = t
                syllableEnd = t + Double.random(in: 0.12...0.3, using: &rng)
                f0 = Double.random(in: 100...220, using: &rng)
            }
            guard t < syllableEnd else { continue }
            let progress = (t - syllableStart) / (syllableEnd - syllableStart)
            let pitch = f0 * (1 + 0.1 * sin(.pi * progress)) * (1 + 0.01 * rng.gaussian())
            phase += pitch / sampleRate
            if phase >= 1 {
                phase -= 1
                source[n] = sin(.pi * progress)
            }
            source[n] += 0.02 * rng.gaussian() * sin(.pi * progress)
        }
        var out = source
        for (frequency, bandwidth) in [(700.0, 130.0), (1200.0, 150.0)] {
            out = resonate(out, sampleRate: sampleRate, frequency: frequency, bandwidth: bandwidth)
        }
        return normalised(out, rms: rms)
    }

    /// Music-like sound: chords of harmonic tones changing every 0.5 s, with a plucked attack.
    static func musicLike(sampleRate: Double, duration: Double, rms: Double = 0.1, seed: UInt64 = 5) -> [Float] {
        var rng = SeededGenerator(seed: seed)
        let count = Int(duration * sampleRate)
        var out = [Double](repeating: 0, count: count)
        let roots = [110.0, 130.81, 146.83, 164.81, 196.0]
        var n = 0
        while n < count {
            let root = roots[Int.random(in: 0..<roots.count, using: &rng)]
            let chord = [root, root * 1.26, root * 1.498, root / 2]
            let length = min(count - n, Int(0.5 * sampleRate))
            for i in 0..<length {
                let t = Double(i) / sampleRate
                let decay = exp(-3 * t)
                var v = 0.0
                for f in chord { for h in 1...4 { v += sin(2 * .pi * f * Double(h) * t) / Double(h) } }
                out[n + i] = v * decay
            }
            n += length
        }
        return normalised(out, rms: rms)
    }

    static func resonate(_ x: [Double], sampleRate: Double, frequency: Double, bandwidth: Double) -> [Double] {
        let r = exp(-.pi * bandwidth / sampleRate)
        let a1 = 2 * r * cos(2 * .pi * frequency / sampleRate), a2 = -r * r
        var y = [Double](repeating: 0, count: x.count)
        var y1 = 0.0, y2 = 0.0
        for n in x.indices {
            let v = x[n] + a1 * y1 + a2 * y2
            y[n] = v
            y2 = y1
            y1 = v
        }
        return y
    }

    private static func normalised(_ x: [Double], rms: Double) -> [Float] {
        let current = (x.reduce(0) { $0 + $1 * $1 } / Double(max(1, x.count))).squareRoot()
        let gain = current > 0 ? rms / current : 0
        return x.map { Float($0 * gain) }
    }
}

/// The median of a list (nil when empty).
func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/// The p-th quantile (0...1) of a list by nearest rank (nil when empty).
func quantile(_ values: [Double], _ p: Double) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1 < 0 ? 0 : Int((p * Double(sorted.count)).rounded(.up)) - 1)]
}
