import Foundation

/// What a varied recording chain does after the microphone's filtering: the distance's level, the
/// room tone, the amplifier's clipping, the automatic gain control, full scale and quantisation.
struct RecordingStage: Sendable {
    private let gain: Double
    private var roomTone: RoomNoise
    private var roomToneLowCut: Biquad
    private let roomToneGain: Double
    private let clipLevel: Double
    private var gainControl: GainControl?
    private let quantisation: Double?

    init(chain: RecordingChain, sampleRate: Double, seed: UInt64) {
        gain = MicrophoneResponse.gain * amplitude(decibels: chain.levelDB)
        roomTone = RoomNoise(sampleRate: sampleRate, generator: SeededGenerator(seed: seed, stream: .chainRoomTone))
        roomToneLowCut = .highPass(cutoff: chain.lowCut, sampleRate: sampleRate)
        roomToneGain = amplitude(decibels: chain.roomToneDBFS) / RoomNoise.rms(sampleRate: sampleRate, lowCut: chain.lowCut)
        clipLevel = chain.clipHeadroomDB.map { MicrophoneResponse.gain * amplitude(decibels: chain.levelDB + $0) } ?? .infinity
        gainControl = chain.gainControl.map { GainControl($0, sampleRate: sampleRate) }
        quantisation = chain.bitDepth.map { Double((1 << ($0 - 1)) - 1) }
    }

    @inline(__always)
    mutating func process(_ filtered: Double) -> Float {
        var y = gain * filtered + roomToneGain * roomToneLowCut.process(roomTone.next())
        y = min(max(y, -clipLevel), clipLevel)
        if gainControl != nil { y = gainControl!.process(y) }
        y = min(max(y, -1), 1)
        if let quantisation { y = (y * quantisation).rounded() / quantisation }
        return Float(y)
    }
}

/// The running state of an ``AutomaticGainControl``.
private struct GainControl: Sendable {
    private let target: Double
    private let attack: Double
    private let release: Double
    private let maxGain: Double
    private let minGain: Double
    private var power: Double

    init(_ settings: AutomaticGainControl, sampleRate: Double) {
        target = amplitude(decibels: settings.targetDBFS)
        attack = 1 - exp(-1 / (settings.attack * sampleRate))
        release = 1 - exp(-1 / (settings.release * sampleRate))
        maxGain = amplitude(decibels: settings.maxGainDB)
        minGain = amplitude(decibels: -20)
        power = target * target
    }

    @inline(__always)
    mutating func process(_ x: Double) -> Double {
        let p = x * x
        power += (p > power ? attack : release) * (p - power)
        return x * min(max(target / (power.squareRoot() + 1e-9), minGain), maxGain)
    }
}

extension RoomNoise {
    /// The long-term RMS of room noise at `sampleRate` through a 2nd-order high-pass at `lowCut`,
    /// measured on 4 s of a fixed seed.
    static func rms(sampleRate: Double, lowCut: Double) -> Double {
        var noise = RoomNoise(sampleRate: sampleRate, generator: SeededGenerator(seed: 0))
        var highPass = Biquad.highPass(cutoff: lowCut, sampleRate: sampleRate)
        let count = Int(4 * sampleRate)
        var energy = 0.0
        for _ in 0..<count {
            let y = highPass.process(noise.next())
            energy += y * y
        }
        return (energy / Double(count)).squareRoot()
    }
}
