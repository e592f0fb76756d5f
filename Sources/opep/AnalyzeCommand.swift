import ArgumentParser

struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "analyze")
    func run() throws {}
}
