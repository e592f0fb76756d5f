import Foundation
import OPEPKit

/// The random details of one exhalation's sound.
struct ExhalationSound: Sendable {
    var breath: TrueBreath
    /// Exponent of the rocker's pulse shape `sin(π x)^(2 p)`.
    var pulseExponent: Double
    /// Resonance of the rocker's closing click in Hz (kept below 0.4 × the sample rate on use).
    var clickFrequency: Double
    /// 1/e decay time of the click in seconds.
    var clickDecay: Double
    /// Seconds of the loudness fade at the end.
    var release: Double
    /// Amplitude relative to a nominal exhalation: louder at higher pressure, plus a random ±1.5 dB.
    var level: Double
    /// Real breath noise instead of the steady flow noise, if set (``RealBreath``).
    var flow: BreathFlowSound?
    /// Amplitude of the breath noise heard unmodulated beside the rocker's, against its open level.
    var leak = 0.0
    /// Share of each cycle the valve stands open, if the rocker chops the jet through it (real
    /// breath, ``ValveGate``); nil for the modulated flow noise of the steady model.
    var valveDuty: Double?

    init(breath: TrueBreath, using g: inout SeededGenerator) {
        self.breath = breath
        pulseExponent = g.uniform(2...3)
        clickFrequency = g.uniform(1500...4000)
        clickDecay = g.uniform(0.003...0.005)
        release = g.uniform(0.05...0.1)
        level = (breath.plateauPressure / 15).squareRoot() * amplitude(decibels: g.uniform(-1.5...1.5))
    }
}

/// The sound of air through the device: flow noise (200 Hz-6 kHz) amplitude-modulated by the
/// rocker at the flutter pitch (with real breath, the jet of ``BreathFlow`` chopped by the valve,
/// ``ValveGate``, beside the breath leaking past it), a click each time the rocker closes and a
/// weak component at the pitch itself. A nominal exhalation (level 1) has an RMS of about 1. A ``SoundVariation`` sets
/// the noise band, the click, the tone at the pitch and its harmonics, and the cycle-to-cycle
/// variation of amplitude and period.
struct FlutterVoice: Sendable {
    private let sampleRate: Double
    private let device: DeviceProfile
    private let depth: Double
    private let buzzLevel: Double
    private let clickLevel: Double
    private let tone: WaveTable
    private let toneLevel: Double
    private let cycleGainVariation: Double
    private var flow: ShapedNoise
    private var breathFlow: BreathFlow
    private var jitter: SeededGenerator
    private var clock: RockerClock
    private var click: Resonator
    private var pulse = WaveTable(shape: { _ in 0 })
    private var closed = 0.0
    private var openDepth = 0.0
    private var normalization = 1.0
    private var cycleGain = 1.0
    private var envelope: OnePole

    init(configuration c: SimulationConfiguration) {
        sampleRate = c.sampleRate
        device = c.device
        depth = c.modulationDepth
        buzzLevel = c.buzzLevel
        let sound = c.variation?.sound
        clickLevel = sound?.clickLevel ?? 1.5
        if let sound {
            let (fundamental, harmonics) = (sound.fundamentalLevel, sound.harmonicLevel)
            tone = WaveTable { x in
                fundamental * sin(2 * Double.pi * x) + harmonics * (0.8 * sin(4 * Double.pi * x) + 0.6 * sin(6 * Double.pi * x))
            }
            toneLevel = 1
        } else {
            tone = .sine
            toneLevel = 0.5
        }
        cycleGainVariation = sound?.cycleGainVariation ?? 0.08
        flow = ShapedNoise(
            band: sound?.breathNoiseBand ?? 200...6000, sampleRate: c.sampleRate,
            generator: SeededGenerator(seed: c.seed, stream: .flutter))
        breathFlow = BreathFlow(
            sampleRate: c.sampleRate, generator: SeededGenerator(seed: c.seed, stream: .breathFlow),
            events: SeededGenerator(seed: c.seed, stream: .breathEvents))
        jitter = SeededGenerator(seed: c.seed, stream: .clicks)
        clock = RockerClock(configuration: c)
        click = Resonator(frequency: 1000, decayTime: 0.004, sampleRate: c.sampleRate)
        envelope = OnePole(timeConstant: 0.0005, sampleRate: c.sampleRate)
    }

    /// Prepares the rocker for a new exhalation: its pulse shape, click and a closed valve.
    mutating func begin(_ sound: ExhalationSound) {
        if let duty = sound.valveDuty {
            pulse = ValveGate(duty: duty).wave
            normalization = 1 / pulse.meanSquare.squareRoot()
            closed = 0
            openDepth = normalization
        } else {
            let exponent = sound.pulseExponent
            pulse = WaveTable { x in pow(sin(Double.pi * x), 2 * exponent) }
            let depth = depth
            normalization = 1 / WaveTable { x in (1 - depth) + depth * pow(sin(Double.pi * x), 2 * exponent) }.meanSquare.squareRoot()
            closed = (1 - depth) * normalization
            openDepth = depth * normalization
        }
        click.retune(like: Resonator(
            frequency: min(sound.clickFrequency, 0.4 * sampleRate), decayTime: sound.clickDecay, sampleRate: sampleRate))
        clock.begin()
        cycleGain = 1
        if let flow = sound.flow { breathFlow.begin(flow) }
    }

    /// Adds the exhalation's sound for `frames` (session frame numbers) into `output`, whose first
    /// element is frame `firstFrame`.
    mutating func render(
        _ sound: ExhalationSound, level: Double, frames: Range<Int>,
        into output: UnsafeMutableBufferPointer<Double>, firstFrame: Int
    ) {
        let breath = sound.breath
        let attack = breath.trajectory.attack
        let duration = breath.trajectory.duration
        let real = sound.flow != nil
        let leak = sound.leak * normalization
        for frame in frames {
            let time = Double(frame) / sampleRate
            let local = time - breath.start
            let loudness = level * smoothstep(local / attack) * smoothstep((duration - local) / sound.release)
            var target = closed
            var fundamental = 0.0
            var excitation = 0.0
            if let pitch = breath.pitch(at: time, device: device) {
                if clock.advance(pitch: pitch) {
                    cycleGain = 1 + cycleGainVariation * jitter.bipolar()
                    excitation = clickLevel * (1 + 0.2 * jitter.bipolar())
                }
                target = closed + openDepth * cycleGain * pulse.value(at: clock.phase)
                fundamental = toneLevel * tone.value(at: clock.phase) + (clock.phase < 0.5 ? buzzLevel : -buzzLevel)
            }
            let modulated = real
                ? (envelope.process(target) + leak) * breathFlow.next()
                : envelope.process(target) * flow.next()
            output[frame - firstFrame] += loudness * (modulated + click.process(excitation) + fundamental)
        }
    }
}

/// The rocker's valve as it chops the jet of breath through the device: the lever swings about
/// sinusoidally and lifts off its seat for `duty` of each cycle; the orifice's open area grows
/// with the lift, the air's speed through it stays set by the mouth's pressure, so the jet's
/// noise power follows the area and its amplitude the area's square root. Closed, no jet at all:
/// what is heard then is the breath leaking past the device (``ExhalationSound/leak``).
struct ValveGate: Sendable {
    /// Share of the cycle the valve stands open, in 0...1 (each breath draws it from ``duties``).
    var duty: Double
    /// Range a breath's duty is drawn from: open between a third and two thirds of each cycle.
    static let duties = 0.3...0.7

    /// The jet's amplitude over one cycle, 0 closed, 1 fully open.
    var wave: WaveTable {
        let seat = cos(Double.pi * duty)
        return WaveTable { x in (max(0, sin(2 * Double.pi * x) - seat) / (1 - seat)).squareRoot() }
    }
}
