import ArgumentParser
import Foundation
import Logging
import OPEPHistory
import OPEPKit
import OPEPSimulation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `opep load`: puts a running `opep serve` under the uploads and live sessions of many phones at
/// once and checks that every session it acknowledged is stored, once (issue 25).
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Upload many sessions and stream many live ones to a running `opep serve` at once; report the times and check none is lost or doubled.",
        discussion: """
            Each upload is a distinct session's document (one simulated session, its duration shifted by \
            a millisecond per copy), POSTed to /api/sessions by --clients clients at once; a share of them \
            (--repeat) is sent a second time, as a phone does when it did not hear the answer. At the end \
            the server's list of sessions must hold every acknowledged session exactly once. Bounded by \
            --uploads and --seconds; prints uploads per second and the request times (p50, p99).

            With --live N, N phones at once also stream a simulated session (one set of --live-breaths \
            breaths, 48 kHz) over /live in 100 ms chunks at real time, as the coach page does; each must \
            end with its summary and be stored complete with its breaths (errors it was told are listed). Prints the server's \
            time per chunk from GET /api/health (since the server started: use a fresh server) and the \
            delay from a chunk sent to its live frame back. Start the server with --max-sessions N or more.
            """)

    @Option(help: "The server, e.g. http://127.0.0.1:8080 (loopback unless you mean otherwise).")
    var url = "http://127.0.0.1:8080"

    @Option(help: "Sessions to upload (0-1000000).")
    var uploads = 1000

    @Option(help: "Live sessions streamed over /live at once (0-1000).")
    var live = 0

    @Option(help: "Breaths in each live session (1-20; 5 take about 51 s).")
    var liveBreaths = 5

    @Option(help: "Clients uploading at once (1-1000).")
    var clients = 16

    @Option(help: "Share of the uploads sent a second time (0-1).")
    var `repeat` = 0.1

    @Option(help: "Stop starting uploads after this many seconds (1-86400).")
    var seconds = 600.0

    @Option(help: "The server's access token, when it asks for one.")
    var token: String?

    func validate() throws {
        guard (0...1_000_000).contains(uploads) else { throw ValidationError("--uploads \(uploads): give 0 to 1000000.") }
        guard (0...1000).contains(live) else { throw ValidationError("--live \(live): give 0 to 1000.") }
        guard (1...20).contains(liveBreaths) else { throw ValidationError("--live-breaths \(liveBreaths): give 1 to 20.") }
        guard uploads + live > 0 else { throw ValidationError("--uploads 0 and --live 0: give something to send.") }
        guard (1...1000).contains(clients) else { throw ValidationError("--clients \(clients): give 1 to 1000.") }
        guard (0...1).contains(`repeat`) else { throw ValidationError("--repeat \(`repeat`): give a share from 0 to 1.") }
        guard seconds >= 1, seconds <= 86400 else { throw ValidationError("--seconds \(seconds): give 1 to 86400.") }
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
            throw ValidationError("--url \(url): give the server's address, e.g. http://127.0.0.1:8080.")
        }
    }

    func run() async throws {
        let before = try await storedSessions()
        let liveChunks = live > 0 ? try LiveClient.simulatedChunks(breaths: liveBreaths) : []
        let uploadRun = try UploadRun(base: Self.document(), plan: UploadPlan(count: uploads, repeatShare: `repeat`))
        async let uploading = uploads > 0 ? runUploads(uploadRun) : 0
        async let streamed = live > 0 ? runLive(liveChunks) : []
        let elapsed = try await uploading
        let liveOutcomes = try await streamed
        let after = try await storedSessions()
        var lines: [String] = []
        var problems: [String] = []
        if uploads > 0 {
            let liveIDs = Set(liveOutcomes.compactMap(\.sessionID))
            let report = uploadRun.results.report(
                before: before.map(\.id), after: after.map(\.id).filter { !liveIDs.contains($0) }, elapsed: elapsed)
            lines += report.lines
            problems += report.problems
        }
        if live > 0 {
            let health = try await serverHealth()
            let report = LiveReport(outcomes: liveOutcomes, chunks: liveChunks.count, stored: after, health: health)
            lines += report.lines
            problems += report.problems
        }
        print(lines.joined(separator: "\n"))
        if !problems.isEmpty { throw failure(problems.joined(separator: "; ")) }
    }

    /// The uploads: --clients clients, each taking every --clients-th send, until all are sent or
    /// --seconds have passed; the seconds they took.
    private func runUploads(_ run: UploadRun) async throws -> Double {
        let connections = URLSessionConfiguration.ephemeral
        connections.httpMaximumConnectionsPerHost = clients
        connections.timeoutIntervalForRequest = 60
        let session = URLSession(configuration: connections)
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + .seconds(seconds)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<clients {
                group.addTask {
                    var index = client
                    while index < run.plan.sends.count, clock.now < deadline {
                        let copy = run.plan.sends[index]
                        let began = clock.now
                        let answer = await post(try run.bodies.body(copy), with: session)
                        run.results.add(copy: copy, answer: answer, milliseconds: (clock.now - began).seconds * 1000)
                        index += clients
                    }
                }
            }
            try await group.waitForAll()
        }
        return (clock.now - start).seconds
    }

    /// The live sessions, started over ``liveStartSpread`` so that their chunks fall at every phase of the 100 ms.
    private func runLive(_ chunks: [[UInt8]]) async throws -> [LiveClient.Outcome] {
        let logger = {
            var logger = Logger(label: "opep.load")
            logger.logLevel = .critical
            return logger
        }()
        let socketURL = webSocketURL()
        let spread = Self.liveStartSpread
        let count = live
        let token = token
        return await withTaskGroup(of: LiveClient.Outcome.self) { group in
            for index in 0..<count {
                group.addTask {
                    try? await Task.sleep(for: spread * (Double(index) / Double(count)))
                    return await LiveClient.stream(chunks, url: socketURL, token: token, logger: logger)
                }
            }
            var outcomes: [LiveClient.Outcome] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
    }

    /// The live sessions start over this long, not all in one instant.
    static let liveStartSpread = Duration.seconds(2)

    private func webSocketURL() -> String {
        var parts = URLComponents(string: url)!
        parts.scheme = parts.scheme == "https" ? "wss" : "ws"
        parts.path = "/live"
        return parts.string!
    }

    /// The simulated session's document every upload is a copy of.
    static func document() throws -> SessionAnalysis {
        let configuration = SimulationConfiguration(sampleRate: 16000, sets: 1, breathsPerSet: 3, leadInSilence: 1, seed: 11)
        var simulator = try SessionSimulator(configuration: configuration)
        var run = try AnalysisRun(configuration: .init(sampleRate: configuration.sampleRate))
        var buffer: [Float] = []
        while simulator.render(into: &buffer, maxFrames: 4096) > 0 { run.process(buffer) { _ in } }
        let report = run.finish { _ in }
        return SessionAnalysis(run: run, report: report, file: "load.wav", format: "simulated", warnings: [])
    }

    /// POSTs one document; the session id and whether it was new, or why not.
    private func post(_ body: Data, with session: URLSession) async -> Result<Acknowledged, LoadFailure> {
        var request = sessionsRequest()
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        do {
            let (data, response) = try await session.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard status == 200 || status == 201,
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let id = (object["session_id"] as? NSNumber)?.int64Value
            else { return .failure(LoadFailure("HTTP \(status): \(String(decoding: data.prefix(200), as: UTF8.self))")) }
            return .success(Acknowledged(id: id, created: status == 201))
        } catch {
            return .failure(LoadFailure("\(error.localizedDescription)"))
        }
    }

    /// A request to the server's `/api/sessions` (or another API path), with the token when there is one.
    private func sessionsRequest(_ path: String = "api/sessions") -> URLRequest {
        var request = URLRequest(url: URL(string: url)!.appendingPathComponent(path))
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        return request
    }

    /// The sessions the server lists.
    private func storedSessions() async throws -> [StoredSession] {
        let rows = try await getJSON("api/sessions")["sessions"] as? [[String: Any]]
        guard let rows else { throw failure("\(url)/api/sessions: not a list of sessions") }
        return rows.compactMap { row in
            guard let id = (row["id"] as? NSNumber)?.int64Value else { return nil }
            return StoredSession(id: id, status: row["status"] as? String ?? "", breaths: (row["breaths"] as? NSNumber)?.intValue ?? 0)
        }
    }

    /// The server's `GET /api/health`.
    private func serverHealth() async throws -> [String: Any] {
        try await getJSON("api/health")
    }

    private func getJSON(_ path: String) async throws -> [String: Any] {
        let request = sessionsRequest(path)
        let data: Data
        let status: Int
        do {
            let (body, response) = try await URLSession.shared.data(for: request)
            data = body
            status = (response as? HTTPURLResponse)?.statusCode ?? 0
        } catch {
            throw failure("\(url): cannot reach the server (\(error.localizedDescription))")
        }
        guard status == 200, let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw failure("\(url)/\(path): HTTP \(status), not the JSON expected")
        }
        return object
    }
}

/// A session in the server's list.
struct StoredSession: Sendable {
    var id: Int64
    var status: String
    var breaths: Int
}

/// The uploads' plan, bodies and answers.
struct UploadRun: Sendable {
    let plan: UploadPlan
    let bodies: BodyMaker
    let results = UploadResults()

    init(base: SessionAnalysis, plan: UploadPlan) {
        self.plan = plan
        bodies = BodyMaker(base: base)
    }
}

/// The live sessions' check: each ended with its summary and is stored complete with its breaths
/// (errors they were told, such as saves that failed for a while, are listed); the server's time
/// per chunk and the loopback delay.
struct LiveReport {
    var lines: [String] = []
    var problems: [String] = []

    init(outcomes: [LiveClient.Outcome], chunks: Int, stored: [StoredSession], health: [String: Any]) {
        let storedByID = Dictionary(stored.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var ended = 0
        var failures: [String: Int] = [:]
        var told: [String: Int] = [:]
        var delays: [Double] = []
        for seen in outcomes {
            delays += seen.delays
            for error in Set(seen.errors) { told[error, default: 0] += 1 }
            if let id = seen.sessionID, let breaths = seen.breaths {
                if let row = storedByID[id], row.status == "complete", row.breaths == breaths {
                    ended += 1
                } else {
                    failures["session \(id) not stored complete with its \(breaths) breaths", default: 0] += 1
                }
            } else {
                failures[seen.failure ?? "no summary", default: 0] += 1
            }
        }
        let dropped = outcomes.count - ended
        let times = health["chunk_times"] as? [String: Any] ?? [:]
        func ms(_ key: String) -> String { (times[key] as? NSNumber).map { String(format: "%.2f ms", $0.doubleValue) } ?? "-" }
        func delay(_ q: Double) -> String { delays.isEmpty ? "-" : String(format: "%.1f ms", quantile(delays, q)) }
        lines = [
            String(format: "%d live sessions at once (%d chunks of 100 ms each, %.1f s): %d ended with their summary and stored complete, %d dropped",
                   outcomes.count, chunks, Double(chunks) / 10, ended, dropped),
            "server time per chunk (GET /api/health, \((times["chunks"] as? NSNumber)?.intValue ?? 0) chunks since the server started): "
                + "p50 \(ms("p50_ms")), p90 \(ms("p90_ms")), p99 \(ms("p99_ms")), max \(ms("max_ms"))",
            "live frame delay (chunk sent → its live frame back, \(delays.count) frames): p50 \(delay(0.5)), p99 \(delay(0.99))",
        ]
        lines += failures.sorted { $0.value > $1.value }.prefix(5).map { "dropped \($0.value)×: \($0.key)" }
        lines += told.sorted { $0.value > $1.value }.prefix(5).map { "told \($0.value)×: \($0.key)" }
        if dropped > 0 { problems.append("\(dropped) of \(outcomes.count) live sessions dropped") }
    }
}

/// The server's answer to an upload: the session's id, and whether it was new (201) or already stored (200).
struct Acknowledged: Hashable {
    var id: Int64
    var created: Bool
}

struct LoadFailure: Error, Hashable {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

/// Which copy each send carries: every copy once, and a share of them again right after.
struct UploadPlan: Sendable {
    let sends: [Int]

    init(count: Int, repeatShare: Double) {
        var sends: [Int] = []
        sends.reserveCapacity(count + Int(Double(count) * repeatShare) + 1)
        let every = repeatShare > 0 ? max(1, Int((1 / repeatShare).rounded())) : Int.max
        for copy in 0..<count {
            sends.append(copy)
            if copy % every == every - 1 { sends.append(copy) }
        }
        self.sends = sends
    }
}

/// Each copy's body: the document with its duration shifted by 1 ms per copy, so each is a
/// different session with the same breaths.
final class BodyMaker: Sendable {
    private let base: SessionAnalysis
    static let shift = 0.001

    init(base: SessionAnalysis) { self.base = base }

    func body(_ copy: Int) throws -> Data {
        var document = base
        document.summary.duration += Double(copy) * Self.shift
        return Data(try reportJSON(document, pretty: false).utf8)
    }
}

/// The answers, gathered from every client.
final class UploadResults: @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [(copy: Int, answer: Result<Acknowledged, LoadFailure>, milliseconds: Double)] = []

    func add(copy: Int, answer: Result<Acknowledged, LoadFailure>, milliseconds: Double) {
        lock.withLock { answers.append((copy, answer, milliseconds)) }
    }

    struct Report {
        var lines: [String]
        var problems: [String]
    }

    /// Rate, times, and the check: every acknowledged copy stored once, under one id.
    func report(before: [Int64], after: [Int64], elapsed: Double) -> Report {
        let answers = lock.withLock { self.answers }
        var idsOfCopy: [Int: Set<Int64>] = [:]
        var failures: [String: Int] = [:]
        var created = 0
        for entry in answers {
            switch entry.answer {
            case .success(let saved):
                idsOfCopy[entry.copy, default: []].insert(saved.id)
                if saved.created { created += 1 }
            case .failure(let failure):
                failures[failure.reason, default: 0] += 1
            }
        }
        let times = answers.map(\.milliseconds)
        let acknowledged = Set(idsOfCopy.values.flatMap { $0 })
        let stored = Set(after).subtracting(before)
        let lost = acknowledged.subtracting(after)
        let split = idsOfCopy.values.filter { $0.count > 1 }.count
        // Each copy makes one new session at most: one acknowledged as created, or one whose every
        // answer was lost (stored, but the answer never came).
        let unanswered = Set(answers.map(\.copy)).subtracting(idsOfCopy.keys).count
        let doubled = stored.count - created - unanswered
        var lines = [
            String(format: "%d uploads (%d sessions, %d sent twice) in %.1f s: %.0f uploads per second", answers.count, idsOfCopy.count,
                   answers.count - Set(answers.map(\.copy)).count, elapsed, Double(answers.count) / max(elapsed, 1e-9)),
            String(format: "request time: p50 %.1f ms, p99 %.1f ms, max %.1f ms", quantile(times, 0.5), quantile(times, 0.99), times.max() ?? .nan),
            "answers: \(created) created (201), \(answers.count - created - failures.values.reduce(0, +)) already stored (200), \(failures.values.reduce(0, +)) failed",
            "stored: \(stored.count) new sessions; lost \(lost.count), stored twice \(max(0, doubled) + split)",
        ]
        lines += failures.sorted { $0.value > $1.value }.prefix(5).map { "failed \($0.value)×: \($0.key)" }
        var problems: [String] = []
        if !lost.isEmpty { problems.append("\(lost.count) acknowledged sessions are not stored") }
        if split > 0 { problems.append("\(split) sessions were given two ids") }
        if doubled > 0 { problems.append("\(doubled) more sessions stored than were sent") }
        return Report(lines: lines, problems: problems)
    }
}
