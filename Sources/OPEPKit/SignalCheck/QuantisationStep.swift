/// The quantisation step a piece of audio was rounded to, read from the samples themselves: the
/// smallest non-zero magnitude of a sample or of a difference between neighbours. Rounded sound
/// reads exactly one step (or a multiple, never less); sound never rounded reads the closest two
/// of its samples. Used by ``ClipMeter`` (a block's peak in steps) and ``RoundingMeter`` (the
/// recording's rounding noise).
enum QuantisationStep {
    /// The key of infinity (see ``smallest(_:count:below:)``); no finite non-zero magnitude's is
    /// as high.
    private static let infinityKey = Int32(bitPattern: Float.infinity.bitPattern) &- 1

    /// The smallest non-zero magnitude among the first `count` samples under `threshold` in
    /// magnitude and the differences between neighbours both under it: infinity when those
    /// samples are all zero, nil when none lies under it (NaN never does). Eight lanes at a time,
    /// on keys: a magnitude's bits (sign cleared) less one order the non-zero finite magnitudes as
    /// they are; zero takes the key of infinity, a sample not under the threshold the highest key.
    static func smallest(_ x: UnsafePointer<Float>, count: Int, below threshold: Float) -> Float? {
        guard count > 0 else { return nil }
        let raw = UnsafeRawPointer(x), stride = MemoryLayout<Float>.stride
        let magnitude = SIMD8<Int32>(repeating: Int32.max), limit = SIMD8<Int32>(repeating: bits(threshold))
        let infinity = SIMD8<Int32>(repeating: infinityKey)
        @inline(__always) func keys(_ m: SIMD8<Int32>) -> SIMD8<Int32> { pointwiseMin((m &- 1) & magnitude, infinity) }
        var least = SIMD8<Int32>(repeating: Int32.max)
        var i = 1
        while i &+ 8 <= count {
            let now = raw.loadUnaligned(fromByteOffset: i &* stride, as: SIMD8<Float>.self)
            let before = raw.loadUnaligned(fromByteOffset: (i &- 1) &* stride, as: SIMD8<Float>.self)
            let m = unsafeBitCast(now, to: SIMD8<Int32>.self) & magnitude
            let outside = m .>= limit
            var a = keys(m)
            a.replace(with: Int32.max, where: outside)
            var d = keys(unsafeBitCast(now - before, to: SIMD8<Int32>.self) & magnitude)
            d.replace(with: Int32.max, where: outside .| ((unsafeBitCast(before, to: SIMD8<Int32>.self) & magnitude) .>= limit))
            least.replace(with: a, where: a .< least)
            least.replace(with: d, where: d .< least)
            i &+= 8
        }
        let t = bits(threshold)
        @inline(__always) func key(_ value: Float) -> Int32 { min((bits(value) &- 1) & Int32.max, infinityKey) }
        var result = least.min()
        if bits(x[0]) < t { result = min(result, key(x[0])) }
        for k in i..<count where bits(x[k]) < t {
            result = min(result, key(x[k]))
            if bits(x[k - 1]) < t { result = min(result, key(x[k] - x[k - 1])) }
        }
        guard result < Int32.max else { return nil }
        return result < infinityKey ? Float(bitPattern: UInt32(result) &+ 1) : .infinity
    }

    /// A value's magnitude as the integer of its bits, sign cleared.
    @inline(__always) private static func bits(_ value: Float) -> Int32 { Int32(bitPattern: value.bitPattern) & Int32.max }
}
