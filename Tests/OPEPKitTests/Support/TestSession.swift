import Foundation

/// A plain session composed from test signals: room noise, then per breath a soft inhalation,
/// a hold and a flutter exhalation, the room going on under all of it; huff coughs (loud unmodulated bursts) after each set.
struct TestSession {
    struct Exhalation { var start: Double; var end: Double; var pitch: Double }
    var samples: [Float] = []
    var exhalations: [Exhalation] = []
    var huffs: [Double] = []

    init(sampleRate: Double, sets: Int, breathsPerSet: Int, pitches: [Double] = [14, 18, 22, 26], seed: UInt64 = 1) {
        var rng = SeededGenerator(seed: seed)
        func append(_ x: [Float]) { samples += x }
        func room(_ seconds: Double) -> [Float] { TestSignals.noise(sampleRate: sampleRate, duration: seconds, rms: 0.001, seed: rng.next()) }
        append(room(1.5))
        for set in 0..<sets {
            for b in 0..<breathsPerSet {
                var inhale = TestSignals.noise(sampleRate: sampleRate, duration: 1, rms: 0.004, seed: rng.next())
                let underInhale = room(1)
                for i in inhale.indices { inhale[i] = inhale[i] * Float(sin(.pi * Double(i) / Double(inhale.count))) + underInhale[i] }
                append(inhale)
                append(room(2))
                let pitch = pitches[(set * breathsPerSet + b) % pitches.count]
                let start = Double(samples.count) / sampleRate
                var exhale = TestSignals.flutter(sampleRate: sampleRate, duration: 3, pitch: { _ in pitch }, seed: rng.next())
                let ramp = Int(0.05 * sampleRate)
                for i in 0..<ramp {
                    exhale[i] *= Float(i) / Float(ramp)
                    exhale[exhale.count - 1 - i] *= Float(i) / Float(ramp)
                }
                let noise = room(3)
                for i in exhale.indices { exhale[i] += noise[i] }
                append(exhale)
                exhalations.append(Exhalation(start: start, end: Double(samples.count) / sampleRate, pitch: pitch))
                append(room(0.5))
            }
            for _ in 0..<2 {
                huffs.append(Double(samples.count) / sampleRate)
                var huff = TestSignals.noise(sampleRate: sampleRate, duration: 0.4, rms: 0.2, seed: rng.next())
                for i in huff.indices { huff[i] *= Float(exp(-3 * Double(i) / Double(huff.count))) }
                append(huff)
                append(room(1.5))
            }
            append(room(12))
        }
    }
}
