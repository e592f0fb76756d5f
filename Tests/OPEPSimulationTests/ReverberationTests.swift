import Foundation
import Testing
@testable import OPEPSimulation

@Suite struct ReverberationTests {
    /// Reverberant over direct energy, in dB, for 3 s of noise in `band` through a room of
    /// `reverbTime` and `directToReverberantDB` (the last 2 s, once the tail has built up).
    func tailOverDirect(band: ClosedRange<Double>, sampleRate: Double, reverbTime: Double = 0.5, directToReverberantDB: Double = 3) -> Double {
        var room = Reverberation(reverbTime: reverbTime, directToReverberantDB: directToReverberantDB, sampleRate: sampleRate)
        var noise = ShapedNoise(band: band, sampleRate: sampleRate, generator: SeededGenerator(seed: 3))
        var direct = 0.0
        var tail = 0.0
        for n in 0..<Int(3 * sampleRate) {
            let x = noise.next()
            let y = room.process(x)
            guard n >= Int(sampleRate) else { continue }
            direct += x * x
            tail += (y - x) * (y - x)
        }
        return 10 * log10(tail / direct)
    }

    /// The tail of a low sound (breath through the device lies below 1 kHz) is as loud against it
    /// at 96 kHz as at 8 kHz, and near the requested ratio; before, it came out 8.8 dB louder at 96 kHz than at 8 kHz.
    @Test func theRatioOfALowSoundIsTheSameAtEverySampleRate() {
        let ratios = [8000.0, 16000, 44100, 96000].map { tailOverDirect(band: 200...800, sampleRate: $0) }
        #expect(ratios.max()! - ratios.min()! < 1.5, "\(ratios)")
        #expect(ratios.allSatisfy { abs($0 - -3) < 2.5 }, "\(ratios)")
    }
}
