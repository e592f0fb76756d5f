import ArgumentParser
import Foundation
import OPEPHistory
import OPEPKit
import OPEPSimulation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `opep load`: puts a running `opep serve` under the uploads of many phones at once and checks
/// that every session it acknowledged is stored, once (issue 25).
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Upload many sessions to a running `opep serve` at once; report the rate and check none is lost or doubled.",
        discussion: """
            Each upload is a distinct session's document (one simulated session, its duration shifted by \
            a millisecond per copy), POSTed to /api/sessions by --clients clients at once; a share of them \
            (--repeat) is sent a second time, as a phone does when it did not hear the answer. At the end \
            the server's list of sessions must hold every acknowledged session exactly once. Bounded by \
            --uploads and --seconds; prints uploads per second and the request times (p50, p99).
            """)

    @Option(help: "The server, e.g. http://127.0.0.1:8080 (loopback unless you mean otherwise).")
    var url = "http://127.0.0.1:8080"

    @Option(help: "Sessions to upload (1-1000000).")
    var uploads = 1000

    @Option(help: "Clients uploading at once (1-1000).")
    var clients = 16

    @Option(help: "Share of the uploads sent a second time (0-1).")
    var `repeat` = 0.1

    @Option(help: "Stop starting uploads after this many seconds (1-86400).")
    var seconds = 600.0

    @Option(help: "The server's access token, when it asks for one.")
    var token: String?

    func validate() throws {
        guard (1...1_000_000).contains(uploads) else { throw ValidationError("--uploads \(uploads): give 1 to 1000000.") }
        guard (1...1000).contains(clients) else { throw ValidationError("--clients \(clients): give 1 to 1000.") }
        guard (0...1).contains(`repeat`) else { throw ValidationError("--repeat \(`repeat`): give a share from 0 to 1.") }
        guard seconds >= 1, seconds <= 86400 else { throw ValidationError("--seconds \(seconds): give 1 to 86400.") }
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
            throw ValidationError("--url \(url): give the server's address, e.g. http://127.0.0.1:8080.")
        }
    }

    func run() async throws {
        let base = try Self.document()
        let before = try await storedSessions()
        let plan = UploadPlan(count: uploads, repeatShare: `repeat`)
        let results = UploadResults()
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + .seconds(seconds)
        let bodies = BodyMaker(base: base)
        let connections = URLSessionConfiguration.ephemeral
        connections.httpMaximumConnectionsPerHost = clients
        connections.timeoutIntervalForRequest = 60
        let session = URLSession(configuration: connections)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<clients {
                group.addTask {
                    var index = client
                    while index < plan.sends.count, clock.now < deadline {
                        let copy = plan.sends[index]
                        let began = clock.now
                        let answer = await post(try bodies.body(copy), with: session)
                        results.add(copy: copy, answer: answer, milliseconds: (clock.now - began).seconds * 1000)
                        index += clients
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = (clock.now - start).seconds
        let after = try await storedSessions()
        let report = results.report(before: before, after: after, elapsed: elapsed)
        print(report.lines.joined(separator: "\n"))
        if !report.problems.isEmpty { throw failure(report.problems.joined(separator: "; ")) }
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

    /// A request to the server's `/api/sessions`, with the token when there is one.
    private func sessionsRequest() -> URLRequest {
        var request = URLRequest(url: URL(string: url)!.appendingPathComponent("api/sessions"))
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        return request
    }

    /// The ids of the sessions the server lists.
    private func storedSessions() async throws -> [Int64] {
        let request = sessionsRequest()
        let data: Data
        let status: Int
        do {
            let (body, response) = try await URLSession.shared.data(for: request)
            data = body
            status = (response as? HTTPURLResponse)?.statusCode ?? 0
        } catch {
            throw failure("\(url): cannot reach the server (\(error.localizedDescription))")
        }
        guard status == 200, let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let rows = object["sessions"] as? [[String: Any]]
        else { throw failure("\(url)/api/sessions: HTTP \(status), not a list of sessions") }
        return rows.compactMap { ($0["id"] as? NSNumber)?.int64Value }
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
        let times = answers.map(\.milliseconds).sorted()
        func quantile(_ q: Double) -> Double { times.isEmpty ? .nan : times[min(times.count - 1, Int((Double(times.count - 1) * q).rounded()))] }
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
            String(format: "request time: p50 %.1f ms, p99 %.1f ms, max %.1f ms", quantile(0.5), quantile(0.99), times.last ?? .nan),
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
