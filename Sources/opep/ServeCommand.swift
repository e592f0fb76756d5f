import ArgumentParser
import Foundation
import Hummingbird
import Logging
import OPEPHistory
import OPEPServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the live coach: a web page that listens through the microphone and shows the pressure breath by breath.",
        discussion: """
            Open the printed address in a browser on this machine (the microphone needs localhost or \
            https). Sessions are saved in the history (see `opep history`). The protocol between the \
            page and the server is in docs/live-protocol.md. --benchmark measures the server's time \
            per 100 ms chunk and the loopback delay to the live frame instead of serving.
            """
    )

    @Option(help: "Address to listen on; 0.0.0.0 opens the coach to the network.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: ArgumentHelp("The history database (default \(HistoryStore.defaultPath())).", valueName: "PATH"))
    var database: String?

    @Flag(help: "Keep every session's raw audio as a 32-bit float WAV next to the database.")
    var keepAudio = false

    @Option(help: "Live sessions at once.")
    var maxSessions = 8

    @Option(help: ArgumentHelp("Use this device profile (e.g. from `opep calibrate`) in the saved plan.", valueName: "FILE"))
    var device: String?

    @Option(help: ArgumentHelp(
        "Let the coach's page at this origin (e.g. https://coach.example.org, where `opep web export` was put) send its sessions here; repeatable.",
        valueName: "ORIGIN"))
    var allowOrigin: [String] = []

    @Flag(help: "Measure the server's speed on a simulated 48 kHz session instead of serving (build with -c release).")
    var benchmark = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535, not \(port).") }
        guard (1...1000).contains(maxSessions) else { throw ValidationError("--max-sessions must be between 1 and 1000, not \(maxSessions).") }
        guard !host.isEmpty else { throw ValidationError("--host needs an address, e.g. 127.0.0.1.") }
        for origin in allowOrigin where Self.origin(origin) != origin {
            throw ValidationError("--allow-origin takes an origin like https://coach.example.org or http://127.0.0.1:8000 (scheme, host and port only), not \(origin).")
        }
    }

    /// `text` reduced to its origin as browsers send it, or nil when it is not a web address.
    static func origin(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else { return nil }
        return "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")"
    }

    func run() async throws {
        if benchmark {
            try await ServerBenchmark.run()
            return
        }
        let path = database ?? HistoryStore.defaultPath()
        let store: HistoryStore
        do {
            store = try HistoryStore(path: path)
        } catch {
            throw failure("\(error)")
        }
        if let device {
            do {
                var plan = try store.plan()
                plan.device = try AnalysisOptions.parse(["--device", device]).deviceProfile()
                try store.savePlan(plan)
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw failure("\(path): cannot save the plan (\(error))")
            }
        }
        var configuration = ServerConfiguration(host: host, port: port)
        configuration.keepAudio = keepAudio
        configuration.uploadOrigins = Set(allowOrigin)
        configuration.limits.maxSessions = maxSessions
        var logger = Logger(label: "opep.serve")
        logger.logLevel = .info
        let shownHost = host == "0.0.0.0" || host == "::" ? "localhost" : host
        let app = buildApplication(configuration, store: store, logger: logger) { port in
            FileHandle.standardOutput.write(Data("opep coach: http://\(shownHost):\(port)/  (history \(path); Ctrl-C stops)\n".utf8))
        }
        try await app.runService()
    }
}
