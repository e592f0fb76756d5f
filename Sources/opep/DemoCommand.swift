import ArgumentParser
import Foundation
import OPEPHistory
import OPEPKit
import OPEPSimulation

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Simulate an OPEP session, analyse its sound and compare with the truth: the main job, no recording needed."
    )

    @Option(help: ArgumentHelp("Keep the simulated session in this folder (default: a temporary folder, removed afterwards).", valueName: "DIR"))
    var keep: String?

    @OptionGroup var session: SimulationOptions

    func validate() throws {
        _ = try session.configuration()
    }

    func run() throws {
        let fileManager = FileManager.default
        let folder = keep ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("opep-demo-\(ProcessInfo.processInfo.processIdentifier)")
        do {
            try fileManager.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw failure("\(folder): cannot create folder")
        }
        defer { if keep == nil { try? fileManager.removeItem(atPath: folder) } }
        let path = (folder as NSString).appendingPathComponent("session.wav")
        let configuration = try session.configuration()
        print("Simulating \(plural(configuration.sets, "set")) of \(plural(configuration.breathsPerSet, "breath")) through an Acapella (\(configuration.pressureRange.lowerBound.clean)-\(configuration.pressureRange.upperBound.clean) cmH2O), \(configuration.noiseKind.rawValue) interference at \(configuration.noiseLevelDB.clean) dB, \(configuration.sampleRate.clean) Hz...")
        let written = try SessionRecording.write(configuration, to: path, encoding: .int16)
        print("Analysing \(path) as a recording:\n")
        let analysis = try SessionAnalysis.run(path: path, raw: nil, options: try AnalysisOptions.parse([]))
        print(TextReport.render(analysis))
        print("\n" + comparison(analysis, truth: written.truth))
        if keep != nil {
            print("\nKept \(path) with its ground truth (\(written.truthJSON), \(written.truthCSV)).")
            print("Try: opep analyze \(path) --format csv | head")
        }
    }

    private func comparison(_ analysis: SessionAnalysis, truth: GroundTruth) -> String {
        let device = truth.configuration.device
        var flutterTime = 0.0
        var pressureSum = 0.0
        let step = 0.01
        for breath in truth.breaths {
            var time = breath.flutterStart
            while time < breath.flutterEnd {
                if let pitch = truth.pitch(at: time) {
                    pressureSum += device.pressure(forPitch: pitch) * step
                    flutterTime += step
                }
                time += step
            }
        }
        let trueMean = flutterTime > 0 ? pressureSum / flutterTime : 0
        let trueSets = Set(truth.breaths.map(\.set)).count
        var line = "Ground truth: \(plural(truth.breaths.count, "breath")) in \(plural(trueSets, "set")), mean pressure over the flutter \(fixed(trueMean, 1)) cmH2O."
        line += " Measured: \(plural(analysis.summary.breathCount, "breath")) in \(plural(analysis.summary.setCount, "set"))"
        if let measured = analysis.summary.meanPressure { line += ", mean pressure \(fixed(measured, 1)) cmH2O" }
        return line + "."
    }
}
