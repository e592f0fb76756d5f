import Foundation
import XCTest
@testable import OPEPKit

/// The period search against a plain reference: Pearson correlation in `Double` at every lag of
/// the band, its local maxima refined by a parabola, the shortest peak within the tracker's
/// octave share (60 %) of the best,
/// with the correlation at twice the period when that fits: at the nearest lag when it reaches the
/// tracker's second-peak minimum, else the best within a lag of it.
final class PeriodSearchTests: XCTestCase {
    private let spanLength = 245, lags = 24...103, minimumOverlap = 50
    private let octaveShare = FlutterPitchTracker.Configuration(sampleRate: 44100).octaveShare
    private let secondPeakMinimum = FlutterPitchTracker.Configuration(sampleRate: 44100).secondPeakMinimum

    private func reference(_ x: [Double]) -> PeriodCandidate? {
        let r = { (lag: Int) in TestSignals.pearson(x, lag: lag) }
        var peaks: [PeriodCandidate] = []
        for lag in (lags.lowerBound + 1)..<lags.upperBound {
            let (before, centre, after) = (r(lag - 1), r(lag), r(lag + 1))
            guard centre > before, centre >= after else { continue }
            let curvature = before - 2 * centre + after
            let offset = curvature < 0 ? 0.5 * (before - after) / curvature : 0
            let height = curvature < 0 ? centre - 0.25 * (before - after) * offset : centre
            peaks.append(PeriodCandidate(period: Double(lag) + offset, correlation: min(1, height)))
        }
        guard let best = peaks.map(\.correlation).max(),
            var found = peaks.first(where: { $0.correlation >= octaveShare * best }) else { return nil }
        let double = Int((2 * found.period).rounded())
        guard double + 1 <= spanLength - minimumOverlap else { return found }
        found.secondPeak = r(double) >= secondPeakMinimum ? r(double) : [double - 1, double, double + 1].map(r).max()
        return found
    }

    private func envelope(period: Double?, noise: Double, seed: UInt64) -> [Double] {
        var rng = SeededGenerator(seed: seed)
        return TestSignals.smoothedPulses(period: period, noise: noise, count: spanLength, rng: &rng)
    }

    private func makeSearch() -> PeriodSearch {
        PeriodSearch(
            spanLength: spanLength, lagRange: lags, searchWidth: 0.15, octaveShare: octaveShare, minimumOverlap: minimumOverlap,
            secondPeakMinimum: secondPeakMinimum)
    }

    /// Calls `body` with `x` as a span of the tracker's rings, with its running sums.
    private func withSpan<Result>(_ x: [Double], _ body: (PeriodSearch.Span) -> Result) -> Result {
        let samples = x.map(Float.init)
        var total = 0.0, totalSquares = 0.0
        var sums = [Double](repeating: 0, count: 512), squares = sums
        for (i, value) in samples.enumerated() {
            total += Double(value)
            totalSquares += Double(value) * Double(value)
            sums[i] = total
            squares[i] = totalSquares
        }
        return samples.withUnsafeBufferPointer { samples in
            sums.withUnsafeBufferPointer { sums in
                squares.withUnsafeBufferPointer { squares in
                    body(PeriodSearch.Span(
                        samples: samples.baseAddress!, sums: sums.baseAddress!, squares: squares.baseAddress!, mask: 511, before: 511))
                }
            }
        }
    }

    private func search(_ x: [Double]) -> PeriodCandidate? {
        var search = makeSearch()
        return withSpan(x) { search.search($0, near: nil, checkFractions: false) }
    }

    func testWholeBandSearchMatchesTheReference() {
        var compared = 0, found = 0
        for seed in UInt64(1)...20 {
            for period in [nil, 25.3, 33.0, 47.7, 61.2, 88.8] as [Double?] {
                for noise in [0.05, 0.3, 1.0] {
                    let x = envelope(period: period, noise: noise, seed: seed &* 31 &+ UInt64(noise * 10))
                    let expected = reference(x), actual = search(x)
                    compared += 1
                    XCTAssertEqual(actual == nil, expected == nil, "period \(String(describing: period)), noise \(noise), seed \(seed)")
                    guard let expected, let actual else { continue }
                    found += 1
                    XCTAssertEqual(actual.period, expected.period, accuracy: 1e-3, "period \(String(describing: period)), noise \(noise), seed \(seed)")
                    XCTAssertEqual(actual.correlation, expected.correlation, accuracy: 1e-4)
                    XCTAssertEqual(actual.secondPeak == nil, expected.secondPeak == nil)
                    XCTAssertEqual(actual.secondPeak ?? 0, expected.secondPeak ?? 0, accuracy: 1e-4)
                }
            }
        }
        XCTAssertEqual(compared, 360)
        XCTAssertGreaterThan(found, 150, "too few periodic cases to compare")
    }

    /// One search reused span after span, near a previous period or not, finds what a fresh one
    /// finds, and its memoised correlations after each search are the span's own at every lag:
    /// nothing of the span before is left in the memo.
    func testAReusedSearchForgetsTheSpanBefore() {
        var reused = makeSearch()
        var searched = 0
        for seed in UInt64(1)...10 {
            for (period, previous) in [(25.3, nil), (47.7, 47.0), (33.0, 66.0), (88.8, 30.0), (61.2, nil)] as [(Double, Double?)] {
                let x = envelope(period: period, noise: 0.3, seed: seed &* 7 &+ UInt64(period))
                withSpan(x) { span in
                    var fresh = makeSearch()
                    let expected = fresh.search(span, near: previous, checkFractions: true)
                    let actual = reused.search(span, near: previous, checkFractions: true)
                    XCTAssertEqual(actual, expected, "period \(period), previous \(String(describing: previous)), seed \(seed)")
                    for lag in lags {
                        XCTAssertEqual(reused.correlation(span, at: lag), reused.correlation(of: span, at: lag), "lag \(lag), seed \(seed)")
                    }
                    searched += 1
                }
            }
        }
        XCTAssertEqual(searched, 50)
    }
}
