import XCTest
@testable import OPEPSimulation

/// Sessions without a variation must render exactly as they did before variations existed.
final class NominalRenderingTests: XCTestCase {
    /// FNV-1a over the bit patterns of the samples.
    private func fingerprint(_ configuration: SimulationConfiguration) throws -> UInt64 {
        let audio = try renderAll(configuration, chunk: 1000).audio
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for sample in audio {
            hash = (hash ^ UInt64(sample.bitPattern)) &* 0x100_0000_01B3
        }
        return hash
    }

    func testNominalSessionsRenderAsBefore() throws {
        let cases: [(SimulationConfiguration, UInt64)] = [
            (shortConfiguration(noiseKind: .mixed, noiseLevelDB: -15), 17_610_415_478_163_898_587),
            (shortConfiguration(sampleRate: 16000, noiseKind: .speech, seed: 3), 17_073_073_274_307_738_437),
            (shortConfiguration(sampleRate: 22050, noiseKind: .cough, noiseLevelDB: -10, seed: 11), 15_079_524_764_479_082_899),
        ]
        for (configuration, expected) in cases {
            let hash = try fingerprint(configuration)
            XCTAssertEqual(hash, expected, "\(configuration.noiseKind) at \(configuration.sampleRate) Hz")
        }
    }
}
