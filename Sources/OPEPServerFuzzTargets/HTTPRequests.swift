import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import OPEPHistory
import OPEPKit
import OPEPServer

/// The `http` target: one request to the server's routes (``buildRouter(_:store:logger:failures:live:)``
/// with a token required), into a clinic's history in memory: a clinician following Ann, a
/// colleague following Cy, one session each and one of the history's own.
///
/// The first byte picks who asks (low three bits: no one, the server's token, Ann's token as a
/// bearer or as the cookie, the clinician's sign-in, the colleague's, a token nobody has, the
/// token of Bo, who is archived) and the method (the next three bits); the bytes up to the first
/// newline are the path with its query, the rest the body.
///
/// Besides never crashing, every answer must be below 500, carry the pages' security headers, and
/// under `/api/` say what was wrong as a JSON `{"error"}`; a session's data succeeds only for
/// whoever may read it (its patient, their clinician, the server's token), a patient's clinic
/// routes only for their clinician. What a request changes
/// (a plan, an upload, a sign-out, an archive, a hand-over, a token, a patient added) is put back
/// before the next; when a request deleted Bo, the clinic is made anew.
enum HTTPRequests {
    static let password = "correct horse battery"
    static let methods: [HTTPRequest.Method] = [.get, .post, .put, .delete, .head, .options, .patch, .get]

    /// The clinic every request meets, made once.
    final class Clinic: @unchecked Sendable {
        let store: HistoryStore
        let responder: any HTTPResponder<ServerRequestContext>
        let channel = EmbeddedChannel()
        let logger = Logger(label: "opep-fuzz") { _ in SwiftLogNoOpLogHandler() }
        let serverToken = "fuzz-server-token-0123456789abcdef"
        let annToken = "fuzz-ann-token-0123456789abcdefghij"
        let boToken = "fuzz-bo-token-0123456789abcdefghijk"
        let cyToken = "fuzz-cy-token-0123456789abcdefghijk"
        let signIn = "fuzz-sign-in-0123456789abcdefghijkl"
        let colleagueSignIn = "fuzz-colleague-sign-in-0123456789ab"
        let clinician: Clinician, colleague: Clinician, ann: Patient, bo: Patient, cy: Patient
        let passwordHash: String
        let annSession: Int64, cySession: Int64, ownSession: Int64

        init() throws {
            let store = try HistoryStore()
            self.store = store
            passwordHash = try ClinicianPassword.hash(HTTPRequests.password, cost: 4)
            clinician = try store.addClinician(username: "m.rossi", name: "Maria Rossi", passwordHash: passwordHash)
            colleague = try store.addClinician(username: "j.doe", name: "Jo Doe", passwordHash: passwordHash)
            ann = try store.addPatient(name: "Ann", clinician: clinician.id, plan: .standard, token: annToken)
            bo = try store.addPatient(name: "Bo", clinician: clinician.id, plan: .standard, token: boToken)
            cy = try store.addPatient(name: "Cy", clinician: colleague.id, plan: .standard, token: cyToken)
            let recorded = try Self.recorded.get()
            func record(_ patient: Int64?) throws -> Int64 {
                let recorder = try store.beginSession(
                    plan: .standard, source: .browser, configuration: recorded.configuration, frameInterval: recorded.frameInterval,
                    latency: recorded.latency, input: "fuzz", startedAt: Date(timeIntervalSince1970: 1_790_000_000), patient: patient)
                for output in recorded.outputs { recorder.record(output) }
                try recorder.finish(recorded.report)
                return recorder.id
            }
            annSession = try record(ann.id)
            cySession = try record(cy.id)
            ownSession = try record(nil)
            var configuration = ServerConfiguration()
            configuration.access = AccessPolicy(token: AccessToken(text: serverToken)!, secureCookie: false)
            configuration.limits.maxFailedTokens = .max
            responder = buildRouter(configuration, store: store, logger: logger).buildResponder()
            try restore()
        }

        /// Puts back everything a request may have changed but a deleted patient (see ``run(_:)``).
        func restore() throws {
            for added in try store.patients() where ![ann.id, bo.id, cy.id].contains(added.id) {
                try store.setArchived(true, patient: added.id)
                _ = try store.deletePatient(added.id)
            }
            try store.replaceToken(ofPatient: ann.id, with: annToken)
            try store.replaceToken(ofPatient: bo.id, with: boToken)
            try store.replaceToken(ofPatient: cy.id, with: cyToken)
            try store.handOver(patient: ann.id, to: clinician.id)
            try store.handOver(patient: bo.id, to: clinician.id)
            _ = try store.setPasswordHash(passwordHash, forClinician: clinician.username)
            _ = try store.setPasswordHash(passwordHash, forClinician: colleague.username)
            try store.recordSignIn(clinician: clinician.id, token: signIn, expires: .distantFuture)
            try store.recordSignIn(clinician: colleague.id, token: colleagueSignIn, expires: .distantFuture)
            try store.savePlan(.standard)
            try store.savePlan(.standard, forPatient: ann.id)
            try store.savePlan(.standard, forPatient: bo.id)
            try store.setArchived(false, patient: ann.id)
            try store.setArchived(true, patient: bo.id)
            for row in try store.sessions() where ![annSession, cySession, ownSession].contains(row.id) {
                _ = try store.deleteSession(row.id)
            }
        }

        /// What a session is recorded from.
        typealias Recorded = (
            configuration: SessionAnalyzer.Configuration, frameInterval: Double, latency: Double, outputs: [SessionOutput], report: SessionReport
        )
        static let recorded = Result { try recordedSession() }

        /// Three seconds of a 15 Hz flutter at 16 kHz, analysed: the outputs a session is recorded from.
        static func recordedSession() throws -> Recorded {
            let rate = 16_000.0
            var random: UInt64 = 0x9E37_79B9_7F4A_7C15
            let samples = (0..<Int(4 * rate)).map { n -> Float in
                random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = Float(Int64(bitPattern: random) >> 40) / Float(1 << 23)
                let t = Double(n) / rate
                guard t >= 0.5, t < 3.5 else { return noise * 0.001 }
                return noise * Float(0.3 * (1 + 0.9 * sin(2 * Double.pi * 15 * t)))
            }
            let configuration = SessionAnalyzer.Configuration(sampleRate: rate)
            var run = try AnalysisRun(configuration: configuration)
            var outputs: [SessionOutput] = []
            run.process(samples) { outputs.append($0) }
            let report = run.finish { outputs.append($0) }
            return (configuration, run.frameInterval, run.latency, outputs, report)
        }
    }

    nonisolated(unsafe) private static var clinic: Clinic? = try? Clinic()

    /// Whether the request was answered with a success (2xx).
    static func run(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let clinic, let first = bytes.first else { return false }
        let rest = bytes.dropFirst()
        let newline = rest.firstIndex(of: 0x0A) ?? rest.endIndex
        var path = String(decoding: rest[rest.startIndex..<newline], as: UTF8.self)
        if !path.hasPrefix("/") { path = "/" + path }
        let body = newline < rest.endIndex ? ByteBuffer(bytes: rest[(newline + 1)...]) : ByteBuffer()
        let method = methods[Int(first >> 3) & 7]
        var head = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1", path: path)
        let asker = Int(first & 7)
        switch asker {
        case 1: head.headerFields[.authorization] = "Bearer \(clinic.serverToken)"
        case 2: head.headerFields[.authorization] = "Bearer \(clinic.annToken)"
        case 3: head.headerFields[.cookie] = "opep_token=\(clinic.annToken)"
        case 4: head.headerFields[.cookie] = "opep_clinician=\(clinic.signIn)"
        case 5: head.headerFields[.cookie] = "opep_clinician=\(clinic.colleagueSignIn)"
        case 6: head.headerFields[.authorization] = "Bearer fuzz-nobody-has-this-token-0123456"
        case 7: head.headerFields[.authorization] = "Bearer \(clinic.boToken)"
        default: break
        }
        let answer = answered(Request(head: head, body: .init(buffer: body)), by: clinic)
        let asked = "\(method) \(path.debugDescription)"
        guard let (status, fields, text) = answer else { preconditionFailure("\(asked) threw instead of answering") }
        precondition(status.code < 500, "\(asked) answered \(status.code): \(text.debugDescription)")
        precondition(fields[.contentSecurityPolicy] != nil, "\(asked) answered without its Content-Security-Policy")
        let api = path.hasPrefix("/api/")
        if api, status.code >= 400, method != .head {
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            precondition(object?["error"] is String, "\(asked) answered \(status.code) without saying why as JSON: \(text.debugDescription)")
        }
        if (200..<300).contains(status.code), let id = id(under: "/api/sessions/", in: path) {
            let readers: [Int: Set<Int64>] = [
                1: [clinic.annSession, clinic.cySession, clinic.ownSession], 2: [clinic.annSession], 3: [clinic.annSession],
                4: [clinic.annSession], 5: [clinic.cySession],
            ]
            precondition(readers[asker]?.contains(id) ?? false, "\(asked) answered \(status.code) to asker \(asker), who may not read session \(id)")
        }
        if (200..<300).contains(status.code), let id = id(under: "/api/clinic/patients/", in: path) {
            let followers: [Int: Set<Int64>] = [4: [clinic.ann.id, clinic.bo.id], 5: [clinic.cy.id]]
            precondition(followers[asker]?.contains(id) ?? false, "\(asked) answered \(status.code) to asker \(asker), who does not follow patient \(id)")
        }
        if method != .get {
            do {
                // Bo, archived, is the one patient a request can delete: the clinic is made anew.
                if try clinic.store.patient(clinic.bo.id) == nil {
                    _ = try? clinic.channel.finish(acceptAlreadyClosed: true)
                    Self.clinic = try Clinic()
                } else {
                    try clinic.restore()
                }
            } catch {
                preconditionFailure("the clinic could not be put back after \(asked): \(error)")
            }
        }
        return (200..<300).contains(status.code)
    }

    /// The id a path names right after `prefix` (`/api/sessions/` or `/api/clinic/patients/`), if
    /// any. (`/sessions/ID` is the page that reads a session from the API: the same file for every id.)
    private static func id(under prefix: String, in path: String) -> Int64? {
        let route = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        guard route.hasPrefix(prefix) else { return nil }
        return Int64(route.dropFirst(prefix.count).prefix { $0 != "/" })
    }

    /// The response's status, headers and body; nil when responding threw.
    private static func answered(_ request: Request, by clinic: Clinic) -> (HTTPResponse.Status, HTTPFields, String)? {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: (HTTPResponse.Status, HTTPFields, String)?
        // Made here: the embedded channel it reads belongs to this thread.
        let context = ServerRequestContext(source: .init(channel: clinic.channel, logger: clinic.logger))
        Task {
            defer { done.signal() }
            guard let response = try? await clinic.responder.respond(to: request, context: context) else { return }
            let collected = CollectedBody()
            try? await response.body.write(collected.writer)
            result = (response.status, response.headers, String(buffer: collected.bytes))
        }
        done.wait()
        return result
    }
}

/// A response body gathered into one buffer.
private final class CollectedBody: @unchecked Sendable {
    var bytes = ByteBuffer()

    struct Writer: ResponseBodyWriter {
        let body: CollectedBody
        mutating func write(_ buffer: ByteBuffer) async throws {
            var buffer = buffer
            body.bytes.writeBuffer(&buffer)
        }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }

    var writer: Writer { Writer(body: self) }
}
