import Foundation
import XCTest
@testable import OPEPSimulation

/// The real-breath model against what real breath looks like to the tracker
/// (`shared/real-breath-stats.md`: 257 real exhalations without a device, 44.1 kHz, a microphone
/// near the mouth), measured the same way (``BreathStatistics``).
final class RealBreathTests: XCTestCase {
    /// A figure of `shared/real-breath-stats.md`: its median and 10th-90th percentile range across
    /// exhalations, and how to read it from ``BreathStatistics``.
    typealias Figure = (name: String, median: Double, range: ClosedRange<Double>, measure: @Sendable (BreathStatistics) -> Double)

    /// Real breath's figures: the median and the 10th-90th percentile range across exhalations.
    static let real: [Figure] = [
        ("modulation 2-10 Hz", 0.42, 0.23...0.69, { $0.modulation[0] }),
        ("modulation 10-20 Hz", 0.35, 0.17...0.52, { $0.modulation[1] }),
        ("modulation 20-40 Hz", 0.35, 0.17...0.49, { $0.modulation[2] }),
        ("periodicity median", 0.32, 0.25...0.41, { $0.periodicityMedian }),
        ("periodicity p90", 0.54, 0.44...0.65, { $0.periodicityP90 }),
        ("share r > 0.4", 0.33, 0.17...0.54, { $0.shareAbove04 }),
        ("share r > 0.6", 0.05, 0...0.16, { $0.shareAbove06 }),
        ("50 % of energy below (Hz)", 151, 86...258, { $0.energyBelow[1] }),
        ("share below 500 Hz", 0.99, 0.78...1, { $0.shareBelow500Hz }),
    ]

    /// Exhalations through a device, from the same document: real exhalation noise chopped at a
    /// known flutter rate, and one independent simulator (18 exhalations).
    static let throughDevice: [Figure] = [
        ("modulation 2-10 Hz", 0.31, 0.25...0.48, { $0.modulation[0] }),
        ("modulation 10-20 Hz", 0.60, 0.35...0.82, { $0.modulation[1] }),
        ("modulation 20-40 Hz", 0.37, 0.23...0.71, { $0.modulation[2] }),
        ("periodicity median", 0.77, 0.60...0.89, { $0.periodicityMedian }),
        ("periodicity p90", 0.90, 0.78...0.96, { $0.periodicityP90 }),
        ("share r > 0.4", 1.00, 0.87...1, { $0.shareAbove04 }),
        ("share r > 0.6", 0.92, 0.49...1, { $0.shareAbove06 }),
        ("share below 500 Hz", 0.81, 0.01...0.99, { $0.shareBelow500Hz }),
    ]

    /// Exhalations of sessions with real breath, recorded close (no reverberation to speak of, a
    /// low-cut at 50 Hz, quiet room): those without the device and those through it.
    static func exhalations(seeds: ClosedRange<UInt64>) throws -> (plain: [BreathStatistics], device: [BreathStatistics]) {
        var plain: [BreathStatistics] = []
        var device: [BreathStatistics] = []
        for seed in seeds {
            var g = SeededGenerator(seed: seed, stream: .realBreath)
            var breath = RealBreath.random(using: &g)
            breath.plainExhalations = 3
            var configuration = SimulationConfiguration(
                sampleRate: 44100, sets: 2, breathsPerSet: 2, noiseKind: .quiet, noiseLevelDB: -40, huffCoughsPerSet: 0,
                restBetweenSets: 10, leadInSilence: 1, seed: seed)
            configuration.variation = SessionVariation(
                sound: SoundVariation(), chain: RecordingChain(lowCut: 50), breath: breath)
            let (audio, truth) = try renderAll(configuration)
            func measure(_ start: Double, _ end: Double) -> BreathStatistics? {
                let frames = Int(start * 44100)..<min(audio.count, Int(end * 44100))
                return BreathStatistics(samples: Array(audio[frames]), sampleRate: 44100)
            }
            plain += truth.plainExhalations.compactMap { measure($0.start, $0.end) }
            device += truth.breaths.compactMap { measure($0.flutterStart, $0.flutterEnd) }
        }
        return (plain, device)
    }

    /// Six sessions' exhalations, measured once for every test here.
    static let measured = Result { try exhalations(seeds: 1...6) }

    func testPlainRealBreathLooksLikeRealBreathToTheTracker() throws {
        let (plain, device) = try Self.measured.get()
        XCTAssertGreaterThanOrEqual(plain.count, 8)
        var report = ["figure: real median (10-90 %) | simulated plain median | simulated through the device median"]
        for figure in Self.real {
            let simulated = median(plain.map(figure.measure))
            let through = median(device.map(figure.measure))
            report.append("\(figure.name): \(figure.median) (\(figure.range)) | \(rounded(simulated, 3)) | \(rounded(through, 3))")
            XCTAssert(figure.range.contains(simulated), "\(figure.name): simulated plain breath's median \(simulated) outside real breath's 10-90 % range \(figure.range)")
        }
        print(report.joined(separator: "\n"))
    }

    /// The flutter through the device looks like the exhalations through a device: each
    /// figure's median over the simulated exhalations lies within their 10-90 % range. Before the
    /// valve chopped the jet whole (a rocker that closed only 40-100 % of the flow) and the jet
    /// fluctuated as much as breath at the mouth, the flutter's median window correlated at 0.31-0.64
    /// (0.31 at a depth of 0.4: plain breath's figure), below that range's 0.60.
    func testTheFlutterThroughTheDeviceLooksLikeRealExhalationsThroughADevice() throws {
        let (_, device) = try Self.measured.get()
        XCTAssertGreaterThanOrEqual(device.count, 20)
        var report = ["figure: through a device, median (10-90 %) | simulated through the device, median"]
        for figure in Self.throughDevice {
            let simulated = median(device.map(figure.measure))
            report.append("\(figure.name): \(figure.median) (\(figure.range)) | \(rounded(simulated, 3))")
            XCTAssert(figure.range.contains(simulated), "\(figure.name): the simulated flutter's median \(simulated) outside the 10-90 % range \(figure.range) of exhalations through a device")
        }
        print(report.joined(separator: "\n"))
    }

    func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }
}
