import Foundation
import OPEPKit
import Testing
@testable import OPEPSimulation

/// Sessions breathed near the phone without the device (``SimulationConfiguration/withoutDevice``).
@Suite struct WithoutDeviceTests {
    /// Two sets of four breaths, two huff coughs each, real breath without extra plain exhalations.
    static func configuration(withoutDevice: Bool) -> SimulationConfiguration {
        var breath = RealBreath()
        breath.plainExhalations = 0
        var configuration = SimulationConfiguration(
            sampleRate: 8000, sets: 2, breathsPerSet: 4, noiseKind: .quiet, noiseLevelDB: -40, huffCoughsPerSet: 2,
            restBetweenSets: 5, leadInSilence: 1, seed: 11)
        configuration.variation = SessionVariation(sound: SoundVariation(), chain: RecordingChain(), breath: breath)
        configuration.withoutDevice = withoutDevice
        return configuration
    }

    @Test func everyBreathBecomesAnExhalationWithoutTheDeviceAndNoHuffIsCoughed() throws {
        let (audio, truth) = try renderAll(Self.configuration(withoutDevice: true))
        #expect(truth.breaths.isEmpty)
        #expect(truth.huffs.isEmpty)
        #expect(truth.plainExhalations.count == 8)
        let silence = rms(audio, sampleRate: 8000, in: 0.1...0.9)
        for exhalation in truth.plainExhalations {
            let level = rms(audio, sampleRate: 8000, in: exhalation.start...exhalation.end)
            #expect(level > 10 * silence, "an exhalation at \(exhalation.start) s is not heard: \(level) against \(silence)")
        }
        let (_, withDevice) = try renderAll(Self.configuration(withoutDevice: false))
        #expect(withDevice.breaths.count == 8)
        #expect(withDevice.huffs.count == 4)
        #expect(withDevice.plainExhalations.isEmpty)
    }

    @Test func aSessionWithoutTheDeviceNeedsRealBreath() {
        var configuration = SimulationConfiguration(withoutDevice: true)
        #expect(throws: SimulationError.outOfRange(
            parameter: "withoutDevice", value: "true", limit: "only with real breath (variation.breath)")) {
            try configuration.validate()
        }
        configuration.variation = SessionVariation(sound: SoundVariation(), chain: RecordingChain(), breath: RealBreath())
        #expect(throws: Never.self) { try configuration.validate() }
    }

    @Test func aConfigurationWrittenBeforeItReadsAsWithTheDevice() throws {
        let old = try JSONDecoder().decode(SimulationConfiguration.self, from: Data(#"{"sets": 1, "seed": 5}"#.utf8))
        #expect(!old.withoutDevice)
        let written = try JSONEncoder().encode(Self.configuration(withoutDevice: true))
        #expect(try JSONDecoder().decode(SimulationConfiguration.self, from: written).withoutDevice)
    }

    /// A random session breathed without the device keeps its rate, room, phone and interference,
    /// and has real breath even where its draw had none.
    @Test(arguments: 0..<40) func aRandomSessionBreathedWithoutTheDeviceKeepsItsRoom(index: UInt64) throws {
        let session = SimulationConfiguration.random(seed: 1_000_000 + index)
        let free = session.breathedWithoutDevice()
        #expect(free.withoutDevice)
        #expect(free.sampleRate == session.sampleRate)
        #expect(free.noiseKind == session.noiseKind)
        #expect(free.noiseLevelDB == session.noiseLevelDB)
        #expect(free.variation?.chain == session.variation?.chain)
        #expect(free.variation?.recording == session.variation?.recording)
        #expect(free.variation?.breath != nil)
        if let breath = session.variation?.breath { #expect(free.variation?.breath == breath) }
        try free.validate()
    }
}
