import ArgumentParser
import Foundation

@main
struct OPEP: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "opep",
        abstract: "Measure OPEP airway-clearance therapy (Acapella and similar devices) from its sound.",
        discussion: """
            The flutter of the device's rocker (10-40 Hz) is tracked in the sound and turned into \
            expiratory pressure with the study line Pressure = -4.659 + 1.119 × Pitch (cmH2O, Hz). \
            Start with `opep demo`.
            """,
        version: "0.1.0",
        subcommands: [
            DemoCommand.self, AnalyzeCommand.self, MonitorCommand.self, ServeCommand.self, HistoryCommand.self, ClinicCommand.self,
            ReportCommand.self, CalibrateCommand.self, SimulateCommand.self, EvaluateCommand.self, BenchmarkCommand.self,
            WebCommand.self, LoadCommand.self,
        ]
    )

    /// Runs the command; a failure the command describes itself ends with one `opep: error:` line.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            printError("error: \(failure)")
            Foundation.exit(1)
        } catch {
            exit(withError: error)
        }
    }
}
