import Foundation

/// Band-limited interpolation of a sampled signal at any fractional position, for converting a
/// recording to another sample rate: a Blackman-windowed sinc read from a table, its cutoff at
/// 95 % of the lower Nyquist frequency of the two rates.
public struct SincResampler: Sendable {
    private static let resolution = 256

    /// Input samples per output sample.
    public let step: Double
    private let halfWidth: Int
    private let table: [Double]

    /// A converter from `inputRate` to `outputRate` (Hz) whose kernel spans `zeroCrossings` zero
    /// crossings of its sinc on each side.
    public init(inputRate: Double, outputRate: Double, zeroCrossings: Int = 12) {
        step = inputRate / outputRate
        let cutoff = 0.95 * min(1, outputRate / inputRate)
        let width = Double(zeroCrossings) / cutoff
        halfWidth = Int(width.rounded(.up))
        table = (0...(halfWidth * Self.resolution + 1)).map { i in
            let d = Double(i) / Double(Self.resolution)
            guard d < width else { return 0 }
            let x = Double.pi * cutoff * d
            let sinc = d == 0 ? 1 : sin(x) / x
            let w = 0.42 + 0.5 * cos(Double.pi * d / width) + 0.08 * cos(2 * Double.pi * d / width)
            return cutoff * sinc * w
        }
    }

    /// The signal `samples` at input position `position` (in input samples): zero beyond its ends,
    /// or read around them when `looping`.
    @inline(__always)
    public func value(_ samples: UnsafeBufferPointer<Float>, at position: Double, looping: Bool) -> Double {
        let count = samples.count
        let base = Int(position.rounded(.down))
        let first = base - halfWidth + 1
        var sum = 0.0
        table.withUnsafeBufferPointer { kernel in
            for k in first...(base + halfWidth) {
                var index = k
                if index < 0 || index >= count {
                    guard looping else { continue }
                    index = ((index % count) + count) % count
                }
                let x = abs(position - Double(k)) * Double(Self.resolution)
                let i = Int(x)
                let weight = kernel[i] + (x - Double(i)) * (kernel[i + 1] - kernel[i])
                sum += weight * Double(samples[index])
            }
        }
        return sum
    }

    /// The whole of `input` at the output rate.
    public func resample(_ input: [Float]) -> [Float] {
        let count = Int((Double(input.count) / step).rounded(.down))
        return input.withUnsafeBufferPointer { samples in
            (0..<count).map { Float(value(samples, at: Double($0) * step, looping: false)) }
        }
    }
}
