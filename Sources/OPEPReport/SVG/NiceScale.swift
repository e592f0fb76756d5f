import Foundation

/// Round tick values for an axis ("nice numbers": steps of 1, 2, 2.5 or 5 times a power of ten).
public struct NiceScale: Sendable, Hashable {
    /// The domain widened to whole steps.
    public var domain: ClosedRange<Double>
    /// Distance between ticks.
    public var step: Double
    /// The tick values, from the lower end of the domain to the upper.
    public var ticks: [Double]

    /// Ticks for `range`, about `count` of them. A zero-width range is widened around its value.
    public init(_ range: ClosedRange<Double>, count: Int = 5, tight: Bool = false) {
        var low = range.lowerBound.isFinite ? range.lowerBound : 0
        var high = range.upperBound.isFinite ? range.upperBound : 1
        if high - low < 1e-9 {
            let pad = max(abs(low) * 0.1, 1)
            low -= pad
            high += pad
        }
        let step = NiceScale.niceStep((high - low) / Double(max(count, 1)))
        let first = (low / step).rounded(.down) * step
        let last = (high / step).rounded(.up) * step
        var ticks: [Double] = []
        var tick = first
        while tick <= last + step * 1e-6 {
            // Avoid "-0" and floating dust such as 0.30000000000000004.
            ticks.append(abs(tick) < step * 1e-9 ? 0 : (tick / step).rounded() * step)
            tick += step
        }
        self.step = step
        if tight {
            domain = low...high
            self.ticks = ticks.filter { $0 >= low - step * 1e-6 && $0 <= high + step * 1e-6 }
        } else {
            domain = first...last
            self.ticks = ticks
        }
    }

    /// The nice number closest above `raw`: 1, 2, 2.5 or 5 × 10^k.
    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        let fraction = raw / magnitude
        let nice: Double = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 2.5 ? 2.5 : fraction <= 5 ? 5 : 10
        return nice * magnitude
    }

    /// Decimals needed to write every tick exactly.
    public var decimals: Int {
        var digits = 0
        while digits < 6 {
            let scaled = step * pow(10, Double(digits))
            if abs(scaled - scaled.rounded()) < 1e-6 { break }
            digits += 1
        }
        return digits
    }
}
