import Foundation

/// One period of a periodic waveform, read with linear interpolation: the cheap oscillator of the
/// simulator (tones, hums, the rocker's pulse shape) instead of a transcendental call per sample.
struct WaveTable: Sendable {
    static let size = 4096
    /// A pure sine, peak 1.
    static let sine = WaveTable(harmonics: [1])

    private let values: [Double]

    /// A sum of harmonics `amplitudes[k-1] · sin(2π k x)`, scaled to peak 1.
    init(harmonics amplitudes: [Double]) {
        var values = (0...Self.size).map { i in
            amplitudes.enumerated().reduce(0.0) { sum, term in
                sum + term.element * sin(2 * Double.pi * Double(term.offset + 1) * Double(i) / Double(Self.size))
            }
        }
        let peak = values.map(abs).max() ?? 1
        values = values.map { $0 / peak }
        self.values = values
    }

    /// Any shape given over one period x ∈ [0, 1].
    init(shape: (Double) -> Double) {
        values = (0...Self.size).map { shape(Double($0) / Double(Self.size)) }
    }

    /// The waveform at `phase` cycles, for a phase in [0, 1).
    @inline(__always)
    func value(at phase: Double) -> Double {
        let x = phase * Double(Self.size)
        let i = Int(x)
        let fraction = x - Double(i)
        return values.withUnsafeBufferPointer { v in v[i] + fraction * (v[i + 1] - v[i]) }
    }

    /// The waveform at any phase in cycles (wrapped into [0, 1)).
    @inline(__always)
    func value(wrapping phase: Double) -> Double {
        value(at: phase - phase.rounded(.down))
    }

    /// The mean square over one period.
    var meanSquare: Double {
        values.dropLast().reduce(0) { $0 + $1 * $1 } / Double(Self.size)
    }
}

/// A phase accumulator in cycles.
struct Phasor: Sendable {
    private(set) var phase = 0.0
    var increment: Double

    init(frequency: Double, sampleRate: Double) {
        increment = frequency / sampleRate
    }

    /// Advances one sample; returns true when the phase wrapped past a whole cycle.
    @inline(__always)
    mutating func advance() -> Bool {
        phase += increment
        guard phase >= 1 else { return false }
        phase -= 1
        return true
    }
}
