import Foundation
import OPEPKit
import Testing
@testable import OPEPSimulation

@Suite struct GroundTruthTests {
    let configuration = SimulationConfiguration(sampleRate: 8000, sets: 2, breathsPerSet: 4, huffCoughsPerSet: 2)

    @Test func breathsAndHuffsAreCountedOrderedAndApart() throws {
        let truth = try SessionSimulator(configuration: configuration).groundTruth
        #expect(truth.breaths.count == configuration.sets * configuration.breathsPerSet)
        #expect(truth.huffs.count == configuration.sets * configuration.huffCoughsPerSet)
        #expect(truth.breaths.map(\.index) == Array(0..<truth.breaths.count))
        #expect(truth.breaths.map(\.set) == [0, 0, 0, 0, 1, 1, 1, 1])
        let intervals = (truth.breaths.map { ($0.start, $0.end) } + truth.huffs.map { ($0.start, $0.end) })
            .sorted { $0.0 < $1.0 }
        #expect(intervals.first!.0 >= configuration.leadInSilence)
        #expect(intervals.last!.1 < truth.duration)
        for (earlier, later) in zip(intervals, intervals.dropFirst()) {
            #expect(earlier.0 < earlier.1)
            #expect(earlier.1 < later.0)
        }
        for breath in truth.breaths {
            #expect(breath.start < breath.flutterStart)
            #expect(breath.flutterStart < breath.flutterEnd)
            #expect(breath.flutterEnd < breath.end)
            #expect((2.5...4.5).contains(breath.end - breath.start))
            #expect(configuration.pressureRange.contains(breath.plateauPressure))
            #expect(abs(breath.meanPressure - configuration.device.pressure(forPitch: breath.meanPitch)) < 1e-9)
        }
        for (huff, set) in zip(truth.huffs, [0, 0, 1, 1]) {
            #expect((0.3...0.8).contains(huff.end - huff.start))
            #expect(huff.set == set)
            #expect(truth.breaths.last { $0.set == set }!.end < huff.start)
        }
    }

    @Test func pitchIsInTheBandDuringFlutterAndNilElsewhere() throws {
        let truth = try SessionSimulator(configuration: configuration).groundTruth
        let device = configuration.device
        for time in stride(from: 0.0, to: truth.duration, by: 0.001) {
            let breath = truth.breaths.first { $0.start <= time && time <= $0.end }
            #expect(truth.isExhaling(at: time) == (breath != nil))
            if let breath, time >= breath.flutterStart, time <= breath.flutterEnd {
                let pitch = try #require(truth.pitch(at: time))
                #expect(pitch >= device.lowerFrequency && pitch <= device.upperFrequency)
                #expect(truth.pressure(at: time) == device.pressure(forPitch: pitch))
            } else {
                #expect(truth.pitch(at: time) == nil)
                #expect(truth.pressure(at: time) == nil)
            }
        }
    }

    @Test func flutterStartsAndStopsAtTheDevicesLowestPitch() throws {
        let truth = try SessionSimulator(configuration: configuration).groundTruth
        let device = configuration.device
        for breath in truth.breaths {
            let onset = device.pitch(forPressure: breath.trajectory.pressure(at: breath.flutterStart - breath.start))
            let offset = device.pitch(forPressure: breath.trajectory.pressure(at: breath.flutterEnd - breath.start))
            #expect(abs(onset - device.lowerFrequency) < 1e-6)
            #expect(abs(offset - device.lowerFrequency) < 1e-6)
            #expect(truth.pitch(at: breath.flutterStart - 1e-6) == nil)
            #expect(truth.pitch(at: breath.flutterEnd + 1e-6) == nil)
            #expect(breath.flutterStart - breath.start < 0.1)
            #expect(breath.end - breath.flutterEnd < 0.2)
        }
    }

    @Test func roundTripsThroughJSON() throws {
        let truth = try SessionSimulator(configuration: configuration).groundTruth
        let decoded = try JSONDecoder().decode(GroundTruth.self, from: JSONEncoder().encode(truth))
        #expect(decoded.breaths == truth.breaths)
        #expect(decoded.huffs == truth.huffs)
        let breath = truth.breaths[3]
        let middle = (breath.flutterStart + breath.flutterEnd) / 2
        #expect(decoded.pitch(at: middle) == truth.pitch(at: middle))
    }
}

@Suite struct RealisedPitchTests {
    /// Per frame every 10 ms of each breath's plateau (its window clear of the pressure's rise and
    /// fall), |realised - nominal| / nominal.
    func departures(jitter: Double) throws -> [Double] {
        var configuration = SimulationConfiguration(sampleRate: 8000, sets: 1, breathsPerSet: 6, huffCoughsPerSet: 0, seed: 11)
        configuration.variation = SessionVariation(sound: SoundVariation(periodJitter: jitter), chain: RecordingChain())
        let truth = try SessionSimulator(configuration: configuration).groundTruth
        let realised = RealisedPitch(truth: truth)
        var departures: [Double] = []
        for breath in truth.breaths {
            let p = breath.trajectory
            let plateau = (breath.start + p.attack + p.rise + 0.125)..<(breath.end - p.fall - 0.125)
            for step in stride(from: plateau.lowerBound, to: plateau.upperBound, by: 0.01) {
                let nominal = try #require(truth.pitch(at: step))
                let rate = try #require(realised.pitch(at: step, window: 0.25))
                departures.append(abs(rate - nominal) / nominal)
            }
        }
        #expect(realised.pitch(at: truth.breaths[0].start - 0.5, window: 0.25) == nil)
        return departures.sorted()
    }

    @Test func withoutJitterTheRealisedRateIsTheNominalContour() throws {
        let departures = try departures(jitter: 0)
        #expect(departures[departures.count / 2] < 0.002, "median departure \(departures[departures.count / 2])")
        #expect(departures.last! < 0.02)
    }

    /// 5 % jitter of each cycle's period, counted over about five cycles: the rate departs from the
    /// contour by about 5 % / √5 ≈ 2 %, with no bias.
    @Test func withJitterTheRealisedRateScattersAroundTheContour() throws {
        let departures = try departures(jitter: 0.05)
        let median = departures[departures.count / 2]
        #expect(median > 0.005 && median < 0.04, "median departure \(median)")
    }
}
