import ArgumentParser
import Foundation
import OPEPAudio
import OPEPHistory
import OPEPKit
import OPEPSimulation

extension NoiseKind: ExpressibleByArgument {}
extension WAVWriter.Encoding: ExpressibleByArgument {}

/// The session a simulation plays: shared by `simulate` and `demo`.
struct SimulationOptions: ParsableArguments {
    @Option(help: "Sets in the session.")
    var sets: Int = 2

    @Option(help: "Breaths per set.")
    var breaths: Int = 10

    @Option(help: ArgumentHelp("Range the breaths' plateau pressures are drawn from, in cmH2O.", valueName: "LOW-HIGH"))
    var pressure: RangeArgument = RangeArgument(8...22)

    @Option(help: "Interference: \(NoiseKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var noise: NoiseKind = .room

    @Option(parsing: .unconditional, help: ArgumentHelp("Interference level relative to the device's sound, in dB.", valueName: "dB"))
    var noiseLevel: Double = -25

    @Option(help: "Sample rate, in Hz.")
    var sampleRate: Double = 44100

    @Option(help: "Huff coughs after each set.")
    var huffs: Int = 2

    @Option(help: ArgumentHelp("Rest between sets, in seconds.", valueName: "s"))
    var rest: Double = 20

    @Option(help: "Seed of the random numbers (the same seed gives the same session).")
    var seed: UInt64 = 1

    @Option(help: "Depth of the rocker's modulation of the flow noise (0-1).")
    var modulationDepth: Double = 0.85

    @Option(help: ArgumentHelp("A buzz at the flutter pitch: a square wave of this amplitude relative to the flow noise (0-3; 0 for none).", valueName: "level"))
    var buzz: Double = 0

    @Flag(help: "Real breath: the exhaled air's own fluctuating low-frequency noise, breathing between the exhalations, two exhalations without the device (which must give no breath).")
    var realBreath = false

    @Flag(help: "Breathing near the phone without the device: each breath becomes an exhalation without it and there are no huff coughs, so nothing must be found (needs --real-breath).")
    var withoutDevice = false

    /// The simulator's configuration, validated.
    func configuration() throws -> SimulationConfiguration {
        guard sampleRate == sampleRate.rounded() else {
            throw ValidationError("--sample-rate must be a whole number of Hz (a WAV header holds no fraction), not \(sampleRate).")
        }
        var configuration = SimulationConfiguration(
            sampleRate: sampleRate, sets: sets, breathsPerSet: breaths, pressureRange: pressure.range,
            noiseKind: noise, noiseLevelDB: noiseLevel, huffCoughsPerSet: huffs, restBetweenSets: rest, modulationDepth: modulationDepth,
            buzzLevel: buzz, seed: seed)
        if realBreath {
            configuration.variation = SessionVariation(sound: SoundVariation(), chain: RecordingChain(), breath: RealBreath())
        }
        if withoutDevice {
            guard realBreath else {
                throw ValidationError("--without-device needs --real-breath: the exhalations without the device are real breath's.")
            }
            configuration.withoutDevice = true
        }
        do {
            try configuration.validate()
        } catch {
            throw ValidationError("\(error)")
        }
        return configuration
    }
}

struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Write a realistic synthetic OPEP session (WAV) with its ground truth (JSON and frame CSV).",
        discussion: """
            The sound is modelled physically: the rocker chops the exhaled air, so the microphone \
            hears broadband flow noise amplitude-modulated at the flutter rate and the rocker's \
            clicks, over breath noise, room tone and the chosen interference, through a phone \
            microphone that cuts below ~100 Hz. The ground truth holds every breath with its flutter \
            times and pressure trajectory; the CSV gives time_s,pitch_hz,pressure_cmh2o,exhaling \
            every 10 ms.
            """
    )

    @Option(name: [.short, .customLong("output")], help: "The WAV file to write.")
    var output: String = "session.wav"

    @Option(help: "Sample encoding of the WAV file.")
    var encoding: WAVWriter.Encoding = .int16

    @OptionGroup var session: SimulationOptions

    func validate() throws {
        _ = try session.configuration()
    }

    func run() throws {
        let written = try SessionRecording.write(try session.configuration(), to: output, encoding: encoding)
        let truth = written.truth
        print("\(output): \(fixed(truth.duration, 1)) s at \(session.sampleRate.clean) Hz, \(session.withoutDevice ? "\(plural(truth.plainExhalations.count, "exhalation")) without the device" : "\(plural(truth.breaths.count, "breath")) in \(plural(session.sets, "set"))"), \(session.noise.rawValue) interference at \(session.noiseLevel.clean) dB")
        print("\(written.truthJSON): ground truth")
        print("\(written.truthCSV): true frames (time_s,pitch_hz,pressure_cmh2o,exhaling)")
    }
}

/// Writes a simulated session and its ground truth next to each other.
enum SessionRecording {
    struct Written {
        var truth: GroundTruth
        var truthJSON: String
        var truthCSV: String
    }

    static func write(_ configuration: SimulationConfiguration, to path: String, encoding: WAVWriter.Encoding) throws -> Written {
        var simulator: SessionSimulator
        do {
            simulator = try SessionSimulator(configuration: configuration)
        } catch {
            throw failure("simulation: \(error)")
        }
        let base = (path as NSString).deletingPathExtension
        let truthJSON = base + ".truth.json"
        let truthCSV = base + ".truth.csv"
        do {
            let writer = try WAVWriter(path: path, sampleRate: Int(configuration.sampleRate), encoding: encoding)
            var buffer: [Float] = []
            while simulator.render(into: &buffer, maxFrames: 16384) > 0 { try writer.write(buffer) }
            try writer.finish()
        } catch {
            throw failure(error.description)
        }
        let truth = simulator.groundTruth
        let json = try reportJSON(truth, pretty: true)
        guard FileManager.default.createFile(atPath: truthJSON, contents: Data(json.utf8)) else {
            throw failure("\(truthJSON): cannot create file")
        }
        let csv = try TextOutput(path: truthCSV)
        try csv.line("time_s,pitch_hz,pressure_cmh2o,exhaling")
        let frames = Int((truth.duration * 100).rounded(.down))
        for index in 0...frames {
            let time = Double(index) / 100
            let pitch = truth.pitch(at: time)
            let pressure = pitch.map(configuration.device.pressure(forPitch:))
            try csv.line("\(fixed(time, 2)),\(pitch.map { fixed($0, 3) } ?? ""),\(pressure.map { fixed($0, 3) } ?? ""),\(truth.isExhaling(at: time) ? 1 : 0)")
        }
        try csv.close()
        return Written(truth: truth, truthJSON: truthJSON, truthCSV: truthCSV)
    }
}
