import Foundation

/// A straight line `y = intercept + slope × x` fitted by ordinary least squares.
public struct LineFit: Sendable, Hashable, Codable {
    public var intercept: Double
    public var slope: Double
    /// Coefficient of determination, 1 - SSres / SStot.
    public var rSquared: Double
    /// Number of points.
    public var count: Int
    /// Standard deviation of the residuals, sqrt(SSres / (n - 2)).
    public var residualStandardDeviation: Double

    enum CodingKeys: String, CodingKey {
        case intercept, slope, rSquared = "r_squared", count = "n", residualStandardDeviation = "residual_sd"
    }

    /// Fits `y` against `x`, which must have the same length, at least 3 points and some spread in x.
    public init(x: [Double], y: [Double]) throws(CalibrationError) {
        guard x.count == y.count else { throw .mismatchedLengths(pitches: x.count, pressures: y.count) }
        guard x.count >= 3 else { throw .tooFewPairs(x.count) }
        let n = Double(x.count)
        let meanX = x.reduce(0, +) / n, meanY = y.reduce(0, +) / n
        var sxx = 0.0, sxy = 0.0, syy = 0.0
        for index in x.indices {
            let dx = x[index] - meanX, dy = y[index] - meanY
            sxx += dx * dx
            sxy += dx * dy
            syy += dy * dy
        }
        guard sxx > 1e-12 * n else { throw .constantPitch }
        slope = sxy / sxx
        intercept = meanY - slope * meanX
        let residual = max(syy - slope * sxy, 0)
        rSquared = syy > 0 ? 1 - residual / syy : 1
        count = x.count
        residualStandardDeviation = (residual / max(n - 2, 1)).squareRoot()
    }

    public func value(at x: Double) -> Double { intercept + slope * x }
}
