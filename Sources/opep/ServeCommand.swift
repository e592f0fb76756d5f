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

            Beyond this machine (--host 0.0.0.0 or a network address) every page, API call and live \
            session needs the access token, kept in opep-token next to the history and printed in the \
            address (and as a QR code when `qrencode` is installed); the server also needs HTTPS: \
            --tls self-signed makes a certificate for this machine's names and addresses and prints its \
            SHA-256 fingerprint to check on the phone.
            """
    )

    @Option(help: "Address to listen on; 0.0.0.0 opens the coach to the network.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one).")
    var port = 8080

    @OptionGroup var history: HistoryDatabaseOptions

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

    @Flag(help: "Ask for the access token on loopback too (it is always asked beyond loopback).")
    var requireToken = false

    @Flag(help: "Replace the access token with a new one (every browser and script must use the new address).")
    var newToken = false

    @Option(help: ArgumentHelp(
        "self-signed: serve HTTPS with a certificate made for this machine, kept next to the history.", valueName: "MODE"))
    var tls: TLSMode?

    @Option(help: ArgumentHelp("Serve HTTPS with this PEM certificate (chain); needs --tls-key.", valueName: "FILE"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "FILE"))
    var tlsKey: String?

    @Flag(help: "Allow plain HTTP beyond loopback (the token and health data then cross the network unencrypted).")
    var insecureHttp = false

    @Flag(help: "Measure the server's speed on a simulated 48 kHz session instead of serving (build with -c release).")
    var benchmark = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535, not \(port).") }
        guard (1...1000).contains(maxSessions) else { throw ValidationError("--max-sessions must be between 1 and 1000, not \(maxSessions).") }
        guard !host.isEmpty else { throw ValidationError("--host needs an address, e.g. 127.0.0.1.") }
        if tls != nil, tlsCert != nil || tlsKey != nil {
            throw ValidationError("Give either --tls self-signed or --tls-cert FILE --tls-key FILE, not both.")
        }
        if (tlsCert == nil) != (tlsKey == nil) {
            throw ValidationError("--tls-cert and --tls-key go together: the certificate and its private key, both PEM.")
        }
        if insecureHttp, tls != nil || tlsCert != nil {
            throw ValidationError("--insecure-http asks for plain HTTP; leave it out to serve HTTPS.")
        }
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
        let location = try history.location()
        let store = try history.openStore()
        // The server's own files (its certificate, its token, kept audio) lie beside a SQLite
        // history; with a PostgreSQL one, in the default history's folder on this computer.
        let path: String
        switch location {
        case .sqlite(let file): path = file
        case .postgres: path = HistoryStore.defaultPath()
        }
        if let device {
            do {
                var plan = try store.plan()
                plan.device = try AnalysisOptions.parse(["--device", device]).deviceProfile()
                try store.savePlan(plan)
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw failure("\(store.location): cannot save the plan (\(error))")
            }
        }
        var configuration = ServerConfiguration(host: host, port: port)
        configuration.keepAudio = keepAudio
        if case .postgres = location {
            configuration.audioFolder = ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent("audio")
        }
        configuration.uploadOrigins = Set(allowOrigin)
        configuration.limits.maxSessions = maxSessions
        let loopback = Self.isLoopback(host)
        let addresses = loopback ? [host] : Self.networkAddresses(host)
        var fingerprint: (String, String)?
        if let certificate = try certificate(database: path, addresses: addresses) {
            do {
                configuration.tls = try certificate.tlsConfiguration()
                fingerprint = (try certificate.fingerprint(), certificate.certificatePath)
            } catch {
                throw failure("\(error)")
            }
        } else if !loopback && !insecureHttp {
            throw failure(
                "--host \(host) opens the coach to the network: serve HTTPS with --tls self-signed (or --tls-cert FILE --tls-key FILE), or give --insecure-http to send health data unencrypted")
        }
        var token: AccessToken?
        if !loopback || requireToken || newToken {
            do {
                token = try AccessTokenFile(besideDatabase: path).loadOrCreate(replace: newToken).token
            } catch {
                throw failure("\(error)")
            }
        }
        if let token, !loopback || requireToken {
            configuration.access = AccessPolicy(token: token, secureCookie: configuration.tls != nil)
        }
        var logger = Logger(label: "opep.serve")
        logger.logLevel = .info
        let scheme = configuration.tls == nil ? "http" : "https"
        let query = configuration.access.map { "?token=\($0.token.text)" } ?? ""
        let shownHosts = loopback ? [host] : (addresses.isEmpty ? ["localhost"] : addresses)
        let certificateLine = fingerprint.map { "certificate SHA-256 fingerprint: \($0.0) (\($0.1))" }
        let showCode = configuration.access != nil
        let hasClinicians = !((try? store.clinicians()) ?? []).isEmpty
        let app = try buildApplication(configuration, store: store, logger: logger) { port in
            var lines = shownHosts.map { shown in
                let host = shown.contains(":") ? "[\(shown)]" : shown
                return "opep coach: \(scheme)://\(host):\(port)/\(query)  (history \(store.location); Ctrl-C stops)"
            }
            if hasClinicians, let first = shownHosts.first {
                let host = first.contains(":") ? "[\(first)]" : first
                lines.append("clinicians sign in at \(scheme)://\(host):\(port)/clinic")
            }
            if let certificateLine { lines.append(certificateLine) }
            if showCode, let first = shownHosts.first {
                let host = first.contains(":") ? "[\(first)]" : first
                lines.append(Self.qrCode("\(scheme)://\(host):\(port)/\(query)"))
            }
            FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        }
        let abandoned = AbandonedSessions(store: store, interval: configuration.abandonedSessionCheck, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await abandoned.run() }
            try await app.runService()
            group.cancelAll()
        }
    }

    /// The certificate to serve with: made or kept for `--tls self-signed`, given by
    /// `--tls-cert/--tls-key`, or nil for plain HTTP.
    func certificate(database: String, addresses: [String]) throws -> ServerCertificate? {
        if let tlsCert, let tlsKey { return ServerCertificate(certificatePath: tlsCert, keyPath: tlsKey) }
        guard tls == .selfSigned else { return nil }
        let certificate = ServerCertificate(besideDatabase: database)
        let hostName = ProcessInfo.processInfo.hostName
        var names = ["localhost"]
        if !hostName.isEmpty, ServerCertificate.addressBytes(hostName) == nil, hostName != "localhost" { names.append(hostName) }
        do {
            try certificate.makeSelfSignedIfNeeded(names: names, addresses: Array(Set(addresses + ["127.0.0.1", "::1"])).sorted())
        } catch {
            throw failure("\(error)")
        }
        return certificate
    }

    /// Whether `host` is this machine only.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The addresses others reach the server at: `host` itself, or for 0.0.0.0 and :: every
    /// address of this machine but loopback's (IPv4 first).
    static func networkAddresses(_ host: String) -> [String] {
        guard host == "0.0.0.0" || host == "::" else { return [host] }
        let all = Host.current().addresses.filter { !isLoopback($0) && !$0.hasPrefix("fe80:") && !$0.contains("%") }
        let v4 = all.filter { !$0.contains(":") }
        return v4 + (host == "::" ? all.filter { $0.contains(":") } : [])
    }

    /// `address` as a QR code for the terminal (through `qrencode`, when installed), or a line
    /// saying how to get one.
    static func qrCode(_ address: String) -> String {
        let search = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let program = search.map({ "\($0)/qrencode" }).first(where: FileManager.default.isExecutableFile(atPath:)) else {
            return "(install qrencode to see this address as a QR code for the phone's camera)"
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = ["-t", "UTF8", "-m", "2", address]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return "(qrencode did not run: \(error.localizedDescription))"
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines) : "(qrencode failed)"
    }
}

/// `--tls` modes.
enum TLSMode: String, ExpressibleByArgument, CaseIterable {
    case selfSigned = "self-signed"
}
