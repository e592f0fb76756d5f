import Foundation
import Logging
import OPEPAudio
import OPEPHistory
import OPEPKit

/// Counts the live sessions running, so that no more than the limit start.
public final class SessionGate: @unchecked Sendable {
    private let lock = NSLock()
    private var running = 0
    public let limit: Int

    public init(limit: Int) { self.limit = limit }

    /// Takes a place; false when all are taken.
    func enter() -> Bool {
        lock.withLock {
            guard running < limit else { return false }
            running += 1
            return true
        }
    }

    func leave() {
        lock.withLock { running = max(0, running - 1) }
    }

    /// Sessions running now.
    public var count: Int { lock.withLock { running } }
}

/// One `/live` connection: the protocol of `docs/live-protocol.md` around one ``SessionAnalyzer``.
///
/// The connection's handler feeds it the inbound messages in order (``receive(text:now:)``,
/// ``receive(binary:now:)``), sends what it leaves in ``takeOutbox()`` and closes when
/// ``shouldClose`` says so; when the socket ends without `stop` it calls ``disconnect()``, which
/// saves the session as interrupted. Nothing runs between messages: a closed tab leaves nothing
/// behind. Refused messages are logged with their reason and answered with an `error` message.
public struct LiveSession {
    /// Text messages to send, oldest first.
    private var outbox: [String] = []
    /// True once the connection should be closed (after `summary`, or a fatal refusal).
    public private(set) var shouldClose = false
    /// True once the session has been finished and saved (or was never started and is over).
    public private(set) var isEnded = false

    private let configuration: ServerConfiguration
    private let store: HistoryStore
    private var logger: Logger
    private let gate: SessionGate
    /// The patient whose token opened the connection; nil for the server's own.
    private let patient: Patient?

    private var run: AnalysisRun?
    private var recorder: SessionRecorder?
    private var audio: WAVWriter?
    private var sampleRate = 0.0
    private var maxSamplesPerMessage = 0
    private var expectedSequence: UInt32 = 0
    private var samples: [Float] = []
    private var outputs: [SessionOutput] = []

    private var newestLive: SessionFrame?
    private var newestLiveSequence: UInt32 = 0
    private var liveIsNew = false
    private var lastLiveSent: ContinuousClock.Instant?
    private var lastStatus: ContinuousClock.Instant?
    private var frameStep = 5
    private var finalFrameIndex = 0
    private var trace: [String] = []
    /// The newest ended breath's number, in the session and in its set (0 once its set ended),
    /// and the newest ended set's, as the engine's events number them.
    private var breathsEnded = 0
    private var breathsEndedInSet = 0
    private var setsEnded = 0
    private var reportedNonFinite = false
    private var warnings: [String] = []
    /// Whether the last flush to the history failed (its database unreachable).
    private var savingFails = false

    /// - Parameter patient: the patient whose token opened the connection: the session follows
    ///   their plan (whatever `start` sends) and is saved as theirs.
    public init(configuration: ServerConfiguration, store: HistoryStore, gate: SessionGate, logger: Logger, patient: Patient? = nil) {
        self.configuration = configuration
        self.store = store
        self.gate = gate
        self.logger = logger
        self.patient = patient
    }

    /// The session's id in the history, once started.
    public var sessionID: Int64? { recorder?.id }

    /// Whether `start` was accepted.
    public var isStarted: Bool { run != nil }

    /// The messages to send now, emptying the outbox.
    public mutating func takeOutbox() -> [String] {
        defer { outbox.removeAll(keepingCapacity: true) }
        return outbox
    }

    // MARK: Inbound

    /// A text message: `start` or `stop`; anything else is refused.
    public mutating func receive(text: String, now: ContinuousClock.Instant = .now) {
        guard !isEnded else { return }
        let message: ClientMessage
        do {
            message = try JSONDecoder().decode(ClientMessage.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            if case .dataCorrupted = error, (try? JSONSerialization.jsonObject(with: Data(text.utf8))) == nil {
                return refuse("the message is not JSON")
            }
            return refuse("the message is not a valid start or stop: \(Self.describe(error))")
        } catch {
            return refuse("the message is not JSON")
        }
        switch message.type {
        case "start":
            start(message, now: now)
        case "stop":
            guard isStarted else { return refuse("stop before start") }
            end(stopped: true)
        default:
            refuse("unknown message type \"\(message.type)\" (expected start or stop)")
        }
    }

    /// A binary message: a little-endian UInt32 sequence number, then little-endian Float32 samples.
    public mutating func receive(binary bytes: UnsafeRawBufferPointer, now: ContinuousClock.Instant = .now) {
        guard !isEnded else { return }
        guard run != nil else { return refuse("audio before start") }
        guard bytes.count >= 4 else { return refuse("a binary message needs a 4-byte sequence number; this one has \(bytes.count) bytes") }
        guard bytes.count % 4 == 0 else { return refuse("a binary message must be a multiple of 4 bytes; this one has \(bytes.count)") }
        let count = bytes.count / 4 - 1
        guard count <= maxSamplesPerMessage else {
            return refuse("a binary message may hold at most \(maxSamplesPerMessage) samples (\(configuration.limits.maxAudioSecondsPerMessage) s); this one has \(count)")
        }
        let sequence = UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self))
        guard sequence == expectedSequence else {
            return refuse("chunk \(sequence) is out of order: the next one is \(expectedSequence)")
        }
        expectedSequence &+= 1

        samples.removeAll(keepingCapacity: true)
        var nonFinite = 0
        for index in 0..<count {
            var value = Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 + index * 4, as: UInt32.self)))
            if !value.isFinite {
                value = 0
                nonFinite += 1
            }
            samples.append(value)
        }
        if nonFinite > 0, !reportedNonFinite {
            reportedNonFinite = true
            let warning = "chunk \(sequence) held \(nonFinite) non-finite samples, treated as silence (reported once)"
            warnings.append(warning)
            refuse(warning)
        }
        if let writer = audio {
            do {
                try writer.write(samples)
            } catch {
                audio = nil
                try? writer.finish()
                let warning = "the audio is no longer kept: \(error)"
                warnings.append(warning)
                refuse(warning)
            }
        }

        var collected = outputs
        collected.removeAll(keepingCapacity: true)
        run!.process(samples) { collected.append($0) }
        handle(collected, sequence: sequence)
        outputs = collected
        sendTrace()
        sendLive(now: now)
        if lastStatus.map({ now - $0 >= configuration.statusInterval }) ?? true {
            lastStatus = now
            sendStatus()
            if patientWasArchived() { return endForArchive() }
        }
        if let recorder, let run {
            do {
                try recorder.flushIfDue(report: run.report)
                if savingFails {
                    savingFails = false
                    logger.notice("the session is saved again", metadata: ["session": "\(recorder.id)"])
                }
            } catch {
                // What was measured stays with the recorder and goes with the next flush that works;
                // the outage is told once, not every second.
                if !savingFails {
                    savingFails = true
                    logger.error("cannot save the session", metadata: ["session": "\(recorder.id)", "error": "\(error)"])
                    outbox.append(Self.errorMessage("the session could not be saved just now (kept here, saved when possible): \(error)"))
                }
            }
        }
    }

    /// Whether the connection's patient has been archived (or deleted) since it opened. A history
    /// that cannot be read just now (an outage) says no: the session goes on.
    private func patientWasArchived() -> Bool {
        guard let patient else { return false }
        do {
            guard let current = try store.patient(patient.id) else { return true }
            return current.archivedAt != nil
        } catch {
            return false
        }
    }

    /// The patient's clinician archived them during the session: it ends here, saved with a
    /// warning up to now, and the patient is told why.
    private mutating func endForArchive() {
        let warning = "the patient was archived during the session, which ended there"
        warnings.append(warning)
        logger.notice("session ended: its patient was archived", metadata: ["session": "\(sessionID.map(String.init) ?? "none")"])
        outbox.append(Self.errorMessage("your physiotherapist has ended your therapy here: this session is saved up to now"))
        end(stopped: true)
    }

    /// `stop` arrived: finishes the analysis, saves the session as complete, answers `summary`.
    public mutating func stop() {
        guard !isEnded else { return }
        end(stopped: true)
    }

    /// The socket ended without `stop` (closed, dropped or failed): finishes the analysis and
    /// saves what was measured, as an interrupted session.
    public mutating func disconnect() {
        guard !isEnded else { return }
        end(stopped: false)
    }

    // MARK: Start and end

    private mutating func start(_ message: ClientMessage, now: ContinuousClock.Instant) {
        guard run == nil else { return refuse("a second start: this session is already running") }
        guard let rate = message.sampleRate else { return refuse("start needs sample_rate") }
        guard rate.isFinite, rate >= 8000, rate <= 192_000 else {
            return refuse("sample_rate must be between 8000 and 192000 Hz, not \(rate)")
        }
        let plan: TherapyPlan
        do {
            plan = try patient?.plan ?? message.plan ?? store.plan()
            try plan.validate()
        } catch {
            return refuse("the plan is not usable: \(error)")
        }
        let analyzerConfiguration = SessionAnalyzer.Configuration(sampleRate: rate, device: plan.device, target: plan.target)
        let run: AnalysisRun
        do {
            run = try AnalysisRun(configuration: analyzerConfiguration)
        } catch {
            return refuse("the analysis cannot run with this plan and sample rate: \(error)")
        }
        guard gate.enter() else {
            refuse("the server is already running \(gate.limit) sessions; close one and try again")
            shouldClose = true
            isEnded = true
            return
        }
        var recorder: SessionRecorder?
        if message.placement != true {
            do {
                recorder = try store.beginSession(
                    plan: plan, source: .browser, configuration: analyzerConfiguration, frameInterval: run.frameInterval,
                    latency: run.latency, input: "live stream, 32-bit float PCM, \(Self.number(rate)) Hz, mono",
                    flushInterval: configuration.flushInterval, patient: patient?.id)
            } catch {
                gate.leave()
                logger.error("cannot create a session in the history", metadata: ["error": "\(error)"])
                return refuse("the history cannot save a new session: \(error)")
            }
        }
        logger[metadataKey: "session"] = "\(recorder.map { String($0.id) } ?? "placement check")"
        self.run = run
        self.recorder = recorder
        sampleRate = rate
        maxSamplesPerMessage = Int((rate * configuration.limits.maxAudioSecondsPerMessage).rounded(.up))
        samples.reserveCapacity(maxSamplesPerMessage)
        frameStep = max(1, Int((0.05 / run.frameInterval).rounded()))
        lastStatus = now

        if let recorder, message.keepAudio == true || configuration.keepAudio {
            startAudio(id: recorder.id, rate: rate)
        }
        logger.info("session started", metadata: ["sample_rate": "\(Self.number(rate))", "keep_audio": "\(audio != nil)"])
        outbox.append(Self.encode(StartedMessage(
            sessionID: recorder?.id, sampleRate: rate, frameIntervalS: run.frameInterval, latencyS: run.latency, plan: plan)))
    }

    private mutating func startAudio(id: Int64, rate: Double) {
        let folder = configuration.audioFolder
            ?? store.path.map { (($0 as NSString).deletingLastPathComponent as NSString).appendingPathComponent("audio") }
            ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("opep-audio")
        let path = (folder as NSString).appendingPathComponent("session-\(id).wav")
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: HistoryStore.folderMode])
            audio = try WAVWriter(path: path, sampleRate: Int(rate.rounded()), encoding: .float32)
            try FileManager.default.setAttributes([.posixPermissions: HistoryStore.fileMode], ofItemAtPath: path)
            try store.setAudioPath(path, forSession: id)
        } catch {
            audio = nil
            let warning = "the audio cannot be kept at \(path): \(error)"
            warnings.append(warning)
            refuse(warning)
        }
    }

    private mutating func end(stopped: Bool) {
        isEnded = true
        shouldClose = true
        guard var run else { return }
        self.run = nil
        defer { gate.leave() }
        var collected: [SessionOutput] = []
        let report = run.finish { collected.append($0) }
        self.run = run
        handle(collected, sequence: expectedSequence &- 1)
        self.run = nil
        sendTrace()
        if let writer = audio {
            audio = nil
            do { try writer.finish() } catch { warnings.append("the kept audio may be incomplete: \(error)") }
        }
        do {
            try recorder?.finish(report, status: stopped ? .complete : .interrupted, warnings: warnings)
        } catch {
            logger.error("cannot save the session", metadata: ["error": "\(error)"])
            if stopped { outbox.append(Self.errorMessage("the session could not be saved: \(error)")) }
        }
        logger.info("session ended", metadata: [
            "status": "\(stopped ? "complete" : "interrupted")", "breaths": "\(report.summary.breathCount)",
            "duration_s": "\(Self.number(report.summary.duration))",
        ])
        if stopped {
            outbox.append(Self.encode(SummaryMessage(sessionID: recorder?.id, summary: report.summary, breaths: report.breaths, sets: report.sets)))
        }
    }

    // MARK: Outbound

    private mutating func handle(_ outputs: [SessionOutput], sequence: UInt32) {
        for output in outputs {
            switch output {
            case let .live(frame):
                newestLive = frame
                newestLiveSequence = sequence
                liveIsNew = true
            case let .frame(frame):
                recorder?.record(output)
                if finalFrameIndex % frameStep == 0 {
                    trace.append("[\(Self.number(frame.time, 3)),\(Self.number(frame.pitch, 2)),\(Self.number(frame.pressure, 2)),\(frame.exhaling ? 1 : 0)]")
                }
                finalFrameIndex += 1
            case let .event(event):
                recorder?.record(output)
                // Frames before the event go out first, so the trace and the event agree.
                sendTrace()
                outbox.append(Self.encode(eventMessage(event)))
            }
        }
    }

    private mutating func eventMessage(_ event: SessionEvent) -> EventMessage {
        var message = EventMessage(kind: event.kind.rawValue, timeS: event.time, durationS: event.duration, breath: event.breath, set: event.set)
        message.breathInSet = event.breathInSet
        switch event.kind {
        case .breathStarted:
            break
        case .breathEnded:
            breathsEnded = event.breath ?? breathsEnded
            breathsEndedInSet = event.breathInSet ?? breathsEndedInSet
            if let index = event.breath, let breath = run?.report.breaths.first(where: { $0.index == index }) {
                message.meanPressureCmH2O = breath.meanPressure
                message.shareInTarget = breath.shareInTarget
                message.flutterShare = breath.flutterShare
                message.signal = breath.signal
                message.advice = breath.signal?.problem.map { $0.advice.description }
            }
        case .setEnded:
            setsEnded = event.set ?? setsEnded
            if let index = event.set, let set = run?.report.sets.first(where: { $0.index == index }) {
                message.meanPressureCmH2O = set.meanPressure
                message.shareInTarget = set.shareInTarget
            }
            breathsEndedInSet = 0
        case .huffCough:
            break
        }
        return message
    }

    private mutating func sendTrace() {
        guard !trace.isEmpty else { return }
        outbox.append("{\"type\":\"frames\",\"frames\":[\(trace.joined(separator: ","))]}")
        trace.removeAll(keepingCapacity: true)
    }

    private mutating func sendLive(now: ContinuousClock.Instant) {
        guard liveIsNew, let frame = newestLive else { return }
        if let last = lastLiveSent, now - last < configuration.liveInterval { return }
        lastLiveSent = now
        liveIsNew = false
        let zone = frame.zone.map { "\"\($0.rawValue)\"" } ?? "null"
        let warning = frame.warning.map { "\"\($0.rawValue)\"" } ?? "null"
        let advice = frame.warning.map { Self.encode($0.advice.description) } ?? "null"
        outbox.append(
            "{\"type\":\"live\",\"t\":\(Self.number(frame.time, 3)),\"seq\":\(newestLiveSequence),\"pitch_hz\":\(Self.number(frame.pitch, 2)),"
                + "\"pressure_cmh2o\":\(Self.number(frame.pressure, 2)),\"zone\":\(zone),\"exhaling\":\(frame.exhaling),"
                + "\"confidence\":\(Self.number(frame.confidence, 3)),\"level_db\":\(Self.number(frame.levelDB, 1)),"
                + "\"warning\":\(warning),\"advice\":\(advice)}")
    }

    private mutating func sendStatus() {
        guard let run else { return }
        let elapsed = run.report.summary.duration
        let hearing = newestLive?.pitch != nil
        outbox.append(
            "{\"type\":\"status\",\"breaths\":\(breathsEnded),\"breaths_in_set\":\(breathsEndedInSet),\"sets\":\(setsEnded),"
                + "\"elapsed_s\":\(Self.number(elapsed, 2)),\"hearing_device\":\(hearing),\"level_db\":\(Self.number(newestLive?.levelDB, 1))}")
    }

    private mutating func refuse(_ reason: String) {
        logger.notice("refused a message", metadata: ["reason": "\(reason)"])
        outbox.append(Self.errorMessage(reason))
    }

    // MARK: JSON

    static func errorMessage(_ text: String) -> String {
        encode(ErrorMessage(message: text))
    }

    static func encode<T: Encodable>(_ value: T) -> String {
        (try? reportJSON(value, keys: .asCoded, pretty: false)) ?? "{\"type\":\"error\",\"message\":\"cannot encode a message\"}"
    }

    static func number(_ value: Double?, _ digits: Int) -> String {
        guard let value, value.isFinite else { return "null" }
        return String(format: "%.\(digits)f", value)
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e12 ? String(Int(value)) : String(value)
    }

    /// A decoding error in one line: the path to the value and what was wrong with it.
    public static func describe(_ error: DecodingError) -> String {
        switch error {
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .keyNotFound(_, context), let .dataCorrupted(context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            if case let .keyNotFound(key, _) = error { return "missing \(path.isEmpty ? "" : path + ".")\(key.stringValue)" }
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// What the page sends as text.
struct ClientMessage: Decodable {
    var type: String
    var sampleRate: Double?
    var plan: TherapyPlan?
    var keepAudio: Bool?
    /// A placement check: analysed and answered like a session, never saved.
    var placement: Bool?

    enum CodingKeys: String, CodingKey {
        case type, sampleRate = "sample_rate", plan, keepAudio = "keep_audio", placement
    }
}

struct StartedMessage: Encodable {
    var type = "started"
    /// Nil (left out) for a placement check, which is not saved.
    var sessionID: Int64?
    var sampleRate: Double
    var frameIntervalS: Double
    var latencyS: Double
    var plan: TherapyPlan

    enum CodingKeys: String, CodingKey {
        case type, sessionID = "session_id", sampleRate = "sample_rate", frameIntervalS = "frame_interval_s", latencyS = "latency_s", plan
    }
}

struct EventMessage: Encodable {
    var type = "event"
    var kind: String
    var timeS: Double
    var durationS: Double?
    var breath: Int?
    var set: Int?
    var breathInSet: Int?
    var meanPressureCmH2O: Double?
    var shareInTarget: Double?
    /// An ended breath's flutter share, its signal figures and the sentence for its problem.
    var flutterShare: Double?
    var signal: SignalFigures?
    var advice: String?

    init(kind: String, timeS: Double, durationS: Double?, breath: Int?, set: Int?) {
        self.kind = kind
        self.timeS = timeS
        self.durationS = durationS
        self.breath = breath
        self.set = set
    }

    enum CodingKeys: String, CodingKey {
        case type, kind, timeS = "time_s", durationS = "duration_s", breath, set, breathInSet = "breath_in_set"
        case meanPressureCmH2O = "mean_pressure_cmh2o", shareInTarget = "share_in_target"
        case flutterShare = "flutter_share", signal, advice
    }
}

struct SummaryMessage: Encodable {
    var type = "summary"
    var sessionID: Int64?
    var summary: SessionSummary
    var breaths: [Breath]
    var sets: [TherapySet]

    enum CodingKeys: String, CodingKey {
        case type, sessionID = "session_id", summary, breaths, sets
    }
}

struct ErrorMessage: Encodable {
    var type = "error"
    var message: String
}
