import ArgumentParser

struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "simulate")
    func run() throws {}
}
