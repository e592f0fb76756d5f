import Foundation

/// A small feedback-delay network: four delay lines mixed by a Hadamard matrix, each with the loss
/// that gives the requested RT60 and a one-pole damping of its highs. The direct sound passes
/// unchanged; the tail is scaled to the requested direct-to-reverberant ratio.
struct Reverberation: Sendable {
    private static let delays = [0.0297, 0.0371, 0.0411, 0.0437]
    private static let dampingCutoff = 4000.0

    private var lines: [Double]
    private let offsets: [Int]
    private let lengths: [Int]
    private var cursors: [Int]
    private let feedback: [Double]
    private var damping: [OnePole]
    private var wet = 1.0

    init(reverbTime: Double, directToReverberantDB: Double, sampleRate: Double) {
        let lengths = Self.delays.map { max(1, Int(($0 * sampleRate).rounded())) }
        self.lengths = lengths
        offsets = lengths.indices.map { i in lengths[..<i].reduce(0, +) }
        lines = [Double](repeating: 0, count: lengths.reduce(0, +))
        cursors = [0, 0, 0, 0]
        feedback = lengths.map { pow(10, -3 * Double($0) / (reverbTime * sampleRate)) }
        damping = Array(repeating: OnePole(cutoff: min(Self.dampingCutoff, 0.4 * sampleRate), sampleRate: sampleRate), count: 4)
        // The ratio is measured below the damping's corner, where a room keeps its reverberation,
        // so that it means the same at every sample rate: over the whole band, the tail's highs
        // (damped away) would count as much as the direct sound's at a high sample rate, and the
        // tail of the low sounds would come out up to 10 dB too loud at 96 kHz.
        var probe = self
        let band = min(Self.dampingCutoff, 0.4 * sampleRate)
        var directBand = Biquad.lowPass(cutoff: band, sampleRate: sampleRate)
        var tailBand = directBand
        var direct = 0.0
        var energy = 0.0
        for n in 0..<Int(reverbTime * sampleRate) {
            let impulse = n == 0 ? 1.0 : 0
            let d = directBand.process(impulse)
            let y = tailBand.process(probe.tail(impulse))
            direct += d * d
            energy += y * y
        }
        wet = amplitude(decibels: -directToReverberantDB) * (direct / max(energy, 1e-24)).squareRoot()
    }

    /// The direct sound plus the tail, one sample.
    @inline(__always)
    mutating func process(_ x: Double) -> Double {
        x + wet * tail(x)
    }

    @inline(__always)
    private mutating func tail(_ x: Double) -> Double {
        var out = (0.0, 0.0, 0.0, 0.0)
        out.0 = damping[0].process(lines[offsets[0] + cursors[0]])
        out.1 = damping[1].process(lines[offsets[1] + cursors[1]])
        out.2 = damping[2].process(lines[offsets[2] + cursors[2]])
        out.3 = damping[3].process(lines[offsets[3] + cursors[3]])
        let a = out.0 + out.1, b = out.0 - out.1, c = out.2 + out.3, d = out.2 - out.3
        let mixed = (0.5 * (a + c), 0.5 * (b + d), 0.5 * (a - c), 0.5 * (b - d))
        lines[offsets[0] + cursors[0]] = x + feedback[0] * mixed.0
        lines[offsets[1] + cursors[1]] = x + feedback[1] * mixed.1
        lines[offsets[2] + cursors[2]] = x + feedback[2] * mixed.2
        lines[offsets[3] + cursors[3]] = x + feedback[3] * mixed.3
        for i in 0..<4 {
            cursors[i] += 1
            if cursors[i] == lengths[i] { cursors[i] = 0 }
        }
        return out.0 + out.1 + out.2 + out.3
    }
}
