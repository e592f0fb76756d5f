import Foundation
import OPEPKit
import Testing
@testable import OPEPSimulation

@Suite struct ConfigurationTests {
    @Test func defaultsAreValid() throws {
        try SimulationConfiguration().validate()
    }

    @Test(arguments: [
        (SimulationConfiguration(sampleRate: 0), "sampleRate"),
        (SimulationConfiguration(sampleRate: .nan), "sampleRate"),
        (SimulationConfiguration(sampleRate: 400_000), "sampleRate"),
        (SimulationConfiguration(sets: 0), "sets"),
        (SimulationConfiguration(breathsPerSet: 0), "breathsPerSet"),
        (SimulationConfiguration(pressureRange: 4...15), "pressureRange"),
        (SimulationConfiguration(pressureRange: 10...60), "pressureRange"),
        (SimulationConfiguration(pressureRange: 10...(.infinity)), "pressureRange"),
        (SimulationConfiguration(noiseLevelDB: 21), "noiseLevelDB"),
        (SimulationConfiguration(noiseLevelDB: .nan), "noiseLevelDB"),
        (SimulationConfiguration(huffCoughsPerSet: -1), "huffCoughsPerSet"),
        (SimulationConfiguration(restBetweenSets: -1), "restBetweenSets"),
        (SimulationConfiguration(leadInSilence: .infinity), "leadInSilence"),
        (SimulationConfiguration(modulationDepth: 1.5), "modulationDepth"),
        (SimulationConfiguration(buzzLevel: 4), "buzzLevel"),
        (SimulationConfiguration(buzzLevel: -1), "buzzLevel"),
        (SimulationConfiguration(device: DeviceProfile(
            name: "broken", lowerFrequency: 30, upperFrequency: 20, interceptCmH2O: 0, slopeCmH2OPerHz: 1)), "device"),
        (SimulationConfiguration(device: DeviceProfile(
            name: "falling", lowerFrequency: 10, upperFrequency: 40, interceptCmH2O: 60, slopeCmH2OPerHz: -1)),
         "device.slopeCmH2OPerHz"),
    ])
    func rejectsBadParameters(configuration: SimulationConfiguration, parameter: String) {
        #expect(throws: SimulationError.self) { try configuration.validate() }
        do {
            try configuration.validate()
        } catch {
            #expect(error.parameter == parameter)
            #expect(error.description.contains(parameter))
        }
        #expect(throws: SimulationError.self) { try SessionSimulator(configuration: configuration) }
    }

    @Test func errorNamesValueAndLimit() {
        #expect(throws: SimulationError.outOfRange(parameter: "noiseLevelDB", value: "30.0", limit: "-120.0...20.0 dB")) {
            try SimulationConfiguration(noiseLevelDB: 30).validate()
        }
    }

    @Test func singlePlateauPressureIsAllowed() throws {
        try SimulationConfiguration(pressureRange: 15...15).validate()
    }

    @Test func partialJSONKeepsDefaults() throws {
        let json = Data(#"{"sampleRate": 16000, "noiseKind": "fan", "pressureRange": [12, 18]}"#.utf8)
        let decoded = try JSONDecoder().decode(SimulationConfiguration.self, from: json)
        #expect(decoded == SimulationConfiguration(sampleRate: 16000, pressureRange: 12...18, noiseKind: .fan))
        let roundTrip = try JSONDecoder().decode(
            SimulationConfiguration.self, from: JSONEncoder().encode(SimulationConfiguration(seed: 99)))
        #expect(roundTrip == SimulationConfiguration(seed: 99))
    }
}
