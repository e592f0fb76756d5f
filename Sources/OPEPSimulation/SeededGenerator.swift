import Foundation

/// A small, fast, seedable random number generator: xoshiro256** seeded through SplitMix64.
///
/// Every random draw of the simulator comes from one of these, so a configuration and a seed
/// always give the same session, on every platform and Swift version.
public struct SeededGenerator: RandomNumberGenerator, Sendable, Hashable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// Creates a generator whose whole sequence is determined by `seed`.
    public init(seed: UInt64) {
        var state = seed
        func splitMix() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix()
        s1 = splitMix()
        s2 = splitMix()
        s3 = splitMix()
    }

    /// Creates the generator of one independent stream of a seed, so that sources drawing at
    /// their own pace never disturb each other's sequences.
    init(seed: UInt64, stream: RandomStream) {
        self.init(seed: seed ^ (stream.rawValue &* 0xD1B5_4A32_D192_ED03))
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, 45)
        return result
    }

    /// A uniform draw from [0, 1).
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A uniform draw from `range`.
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * nextUnit()
    }

    /// A uniform draw from [-1, 1).
    mutating func bipolar() -> Double {
        Double(Int64(bitPattern: next()) >> 11) * 0x1.0p-52
    }

    /// White noise with zero mean and unit variance (uniformly distributed).
    mutating func noise() -> Double {
        bipolar() * 1.7320508075688772
    }

    /// A draw from `range` uniform on a logarithmic scale (both bounds positive).
    mutating func logUniform(_ range: ClosedRange<Double>) -> Double {
        exp(uniform(log(range.lowerBound)...log(range.upperBound)))
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool {
        nextUnit() < p
    }

    /// A uniform integer draw from `range`.
    mutating func integer(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(nextUnit() * Double(range.count))
    }

    private func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 - k))
    }
}

/// The independent random streams of a session.
enum RandomStream: UInt64 {
    case plan = 1, flutter, clicks, inhalation, huff, roomTone, room, fan, speech, music, cough
    case session, variation, contour, periodJitter, recording, chainRoomTone
    case realBreath, breathFlow, breathEvents, breathPlan
}
