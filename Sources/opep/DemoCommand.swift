import ArgumentParser

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo")
    func run() throws {}
}
