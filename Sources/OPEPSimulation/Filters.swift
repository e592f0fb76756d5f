import Foundation

/// A second-order IIR section (transposed direct form II) with the usual audio-cookbook designs.
struct Biquad: Sendable {
    private var b0: Double
    private var b1: Double
    private var b2: Double
    private var a1: Double
    private var a2: Double
    private var z1 = 0.0
    private var z2 = 0.0

    private init(b0: Double, b1: Double, b2: Double, a0: Double, a1: Double, a2: Double) {
        self.b0 = b0 / a0
        self.b1 = b1 / a0
        self.b2 = b2 / a0
        self.a1 = a1 / a0
        self.a2 = a2 / a0
    }

    static func lowPass(cutoff: Double, q: Double = butterworthQ, sampleRate: Double) -> Biquad {
        let (cw, alpha) = terms(cutoff, q, sampleRate)
        return Biquad(b0: (1 - cw) / 2, b1: 1 - cw, b2: (1 - cw) / 2, a0: 1 + alpha, a1: -2 * cw, a2: 1 - alpha)
    }

    static func highPass(cutoff: Double, q: Double = butterworthQ, sampleRate: Double) -> Biquad {
        let (cw, alpha) = terms(cutoff, q, sampleRate)
        return Biquad(b0: (1 + cw) / 2, b1: -(1 + cw), b2: (1 + cw) / 2, a0: 1 + alpha, a1: -2 * cw, a2: 1 - alpha)
    }

    /// A band-pass with 0 dB gain at its centre.
    static func bandPass(center: Double, q: Double, sampleRate: Double) -> Biquad {
        let (cw, alpha) = terms(center, q, sampleRate)
        return Biquad(b0: alpha, b1: 0, b2: -alpha, a0: 1 + alpha, a1: -2 * cw, a2: 1 - alpha)
    }

    private static func terms(_ frequency: Double, _ q: Double, _ sampleRate: Double) -> (Double, Double) {
        let w = 2 * Double.pi * frequency / sampleRate
        return (cos(w), sin(w) / (2 * q))
    }

    /// Takes another design's coefficients, keeping the filter state (for slowly moving filters).
    mutating func retune(like other: Biquad) {
        (b0, b1, b2, a1, a2) = (other.b0, other.b1, other.b2, other.a1, other.a2)
    }

    @inline(__always)
    mutating func process(_ x: Double) -> Double {
        let y = b0 * x + z1
        z1 = b1 * x - a1 * y + z2
        z2 = b2 * x - a2 * y
        return y
    }
}

/// 1/√2, the Q of a second-order Butterworth section.
let butterworthQ = 0.7071067811865476

/// A two-pole resonator: a decaying sinusoid per impulse (clicks) or a formant with unity gain at DC.
struct Resonator: Sendable {
    private var b0: Double
    private var a1: Double
    private var a2: Double
    private var y1 = 0.0
    private var y2 = 0.0

    /// A resonator whose impulse response peaks near the impulse's amplitude and decays by 1/e
    /// in `decayTime` seconds.
    init(frequency: Double, decayTime: Double, sampleRate: Double) {
        let r = exp(-1 / (decayTime * sampleRate))
        let w = 2 * Double.pi * frequency / sampleRate
        a1 = 2 * r * cos(w)
        a2 = r * r
        b0 = sin(w)
    }

    /// A formant resonator of the given bandwidth with unity gain at DC (for cascades).
    init(formant frequency: Double, bandwidth: Double, sampleRate: Double) {
        let r = exp(-Double.pi * bandwidth / sampleRate)
        let w = 2 * Double.pi * frequency / sampleRate
        a1 = 2 * r * cos(w)
        a2 = r * r
        b0 = 1 - a1 + a2
    }

    /// Moves the resonance while keeping the filter state.
    mutating func retune(like other: Resonator) {
        b0 = other.b0
        a1 = other.a1
        a2 = other.a2
    }

    @inline(__always)
    mutating func process(_ x: Double) -> Double {
        let y = b0 * x + a1 * y1 - a2 * y2
        y2 = y1
        y1 = y
        return y
    }
}

/// A one-pole low-pass, y += a·(x − y).
struct OnePole: Sendable {
    private let a: Double
    private(set) var value = 0.0

    init(cutoff: Double, sampleRate: Double) {
        a = 1 - exp(-2 * Double.pi * cutoff / sampleRate)
    }

    init(timeConstant: Double, sampleRate: Double) {
        a = 1 - exp(-1 / (timeConstant * sampleRate))
    }

    @inline(__always)
    mutating func process(_ x: Double) -> Double {
        value += a * (x - value)
        return value
    }
}

/// The cubic smoothstep 3x² − 2x³ of x clamped to [0, 1]: the shape of every fade in the simulator.
@inline(__always)
func smoothstep(_ x: Double) -> Double {
    let u = min(max(x, 0), 1)
    return u * u * (3 - 2 * u)
}

/// An amplitude ratio from decibels.
@inline(__always)
func amplitude(decibels: Double) -> Double {
    pow(10, decibels / 20)
}
