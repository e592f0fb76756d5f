import ArgumentParser

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
            DemoCommand.self, AnalyzeCommand.self, SimulateCommand.self, EvaluateCommand.self, BenchmarkCommand.self,
            ServeCommand.self, HistoryCommand.self,
        ]
    )
}
