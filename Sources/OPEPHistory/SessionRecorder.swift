import Foundation
import OPEPKit

/// Saves one live session as it runs, so that a session that ends abruptly (a closed tab, a
/// dropped connection, a crash) still has everything measured until its last flush.
///
/// ``HistoryStore/beginSession(plan:source:configuration:frameInterval:latency:input:audioPath:startedAt:)``
/// creates the session row (status "recording"); ``record(_:)`` buffers the final frames
/// (decimated to 20 per second) and the events; ``flushIfDue(report:)`` writes them in one
/// transaction about once a second, with the breaths, sets and summary found so far;
/// ``finish(_:status:warnings:)`` writes the rest and the final summary. Owned by one session:
/// not for use from several tasks at once.
public final class SessionRecorder {
    /// The session's id in the history.
    public let id: Int64
    public let store: HistoryStore
    /// Spacing of the frames kept, in seconds (0.05: 20 per second).
    public let keptFrameInterval: Double
    /// How often ``flushIfDue(report:)`` writes, in seconds.
    public let flushInterval: Duration

    private let frameStep: Int
    private var frameIndex = 0
    private var frames: [SessionFrame] = []
    private var events: [SessionEvent] = []
    private var eventCount = 0
    private var savedBreaths = 0
    private var savedSets = 0
    private var lastFlush: ContinuousClock.Instant
    private var finished = false

    init(store: HistoryStore, id: Int64, frameInterval: Double, flushInterval: Duration) {
        self.store = store
        self.id = id
        frameStep = max(1, Int((0.05 / frameInterval).rounded()))
        keptFrameInterval = frameInterval * Double(frameStep)
        self.flushInterval = flushInterval
        lastFlush = .now
        frames.reserveCapacity(64)
    }

    /// Whether ``finish(_:status:warnings:)`` has run.
    public var isFinished: Bool { finished }

    /// Keeps a final frame (one in `0.05 / frameInterval`) or an event for the next flush.
    /// Live frames are not saved.
    public func record(_ output: SessionOutput) {
        switch output {
        case let .frame(frame):
            if frameIndex % frameStep == 0 { frames.append(frame) }
            frameIndex += 1
        case let .event(event):
            events.append(event)
        case .live:
            break
        }
    }

    /// Writes what was buffered when the last write is more than ``flushInterval`` ago.
    /// `report` (the analyzer's report so far) is only computed then.
    public func flushIfDue(report: @autoclosure () -> SessionReport) throws {
        guard !finished, ContinuousClock.now - lastFlush >= flushInterval else { return }
        try flush(report: report(), status: nil, warnings: nil)
    }

    /// Writes what was buffered now, with the breaths, sets and summary of `report`.
    public func flush(report: SessionReport) throws {
        guard !finished else { return }
        try flush(report: report, status: nil, warnings: nil)
    }

    /// Writes the rest and the final report, and closes the session with `status`
    /// (`.complete` after a proper stop, `.interrupted` otherwise).
    public func finish(_ report: SessionReport, status: SessionStatus = .complete, warnings: [String] = []) throws {
        guard !finished else { return }
        try flush(report: report, status: status, warnings: warnings)
        finished = true
    }

    private func flush(report: SessionReport, status: SessionStatus?, warnings: [String]?) throws {
        lastFlush = .now
        let frames = self.frames
        let events = self.events
        let firstEvent = eventCount
        let newBreaths = report.breaths.dropFirst(savedBreaths)
        let newSets = report.sets.dropFirst(savedSets)
        let closing = status.map { (status: $0, endedAt: Date(), warnings: warnings ?? []) }
        let id = self.id
        try store.database.write { db in
            try HistoryStore.saveMeasurements(
                db, session: id, frames: frames, events: events, firstEvent: firstEvent, breaths: newBreaths, sets: newSets,
                summary: report.summary, closing: closing)
        }
        self.frames.removeAll(keepingCapacity: true)
        self.events.removeAll(keepingCapacity: true)
        eventCount += events.count
        savedBreaths = report.breaths.count
        savedSets = report.sets.count
    }
}

extension HistoryStore {
    /// Creates a session (status "recording") and returns its recorder.
    /// - Parameters:
    ///   - configuration, frameInterval, latency: the analyzer's, for the export's settings.
    ///   - input: what the sound is, e.g. "live 32-bit float PCM, 48000 Hz".
    ///   - audioPath: where the raw audio is kept, if it is.
    ///   - patient: the patient the session is theirs (``Patient``), nil in a personal history.
    public func beginSession(
        plan: TherapyPlan, source: SessionSource, configuration: SessionAnalyzer.Configuration,
        frameInterval: Double, latency: Double, input: String, audioPath: String? = nil,
        startedAt: Date = Date(), flushInterval: Duration = .seconds(1), patient: Int64? = nil
    ) throws -> SessionRecorder {
        let planJSON = try Self.json(plan)
        let configurationJSON = try Self.json(configuration)
        let id = try database.write { db in
            guard let id = try Self.insertSession(
                db, startedAt: startedAt, source: source, planJSON: planJSON, configurationJSON: configurationJSON, input: input,
                frameInterval: frameInterval, latency: latency, audioPath: audioPath, patient: patient)
            else { throw HistoryError("\(location): a new session was given no id") }
            return id
        }
        return SessionRecorder(store: self, id: id, frameInterval: frameInterval, flushInterval: flushInterval)
    }

    /// How long a session being recorded may go unsaved before it counts as abandoned: its
    /// recorder saves about once a second, so this long without a save means the program that
    /// recorded it stopped (killed, crashed, its computer off) without ending it.
    public static let abandonedAfter: Duration = .seconds(30)

    /// The warning an abandoned session is closed with.
    public static let abandonedWarning = "the recording stopped without ending the session (its server or program stopped); kept up to its last save"

    /// Marks the sessions still "recording" but not saved for `quietFor` as interrupted, ended at
    /// their last save, with ``abandonedWarning``; returns their ids. Rows of releases before
    /// saves were timed count as saved at their start plus their length.
    @discardableResult
    public func interruptAbandonedSessions(quietFor: Duration = abandonedAfter, now: Date = Date()) throws -> [Int64] {
        let quiet = Double(quietFor.components.seconds) + Double(quietFor.components.attoseconds) * 1e-18
        let warnings = try Self.json([Self.abandonedWarning])
        return try database.write { db in
            try db.rows(
                """
                UPDATE sessions SET status = ?, ended_at = COALESCE(saved_at, started_at + duration_s), warnings_json = ?
                WHERE status = ? AND COALESCE(saved_at, started_at + duration_s) < ? RETURNING id
                """,
                [SessionStatus.interrupted.rawValue, warnings, SessionStatus.recording.rawValue, now.timeIntervalSince1970 - quiet]
            ).map { try $0.get("id") }
        }.sorted()
    }

    /// Records where a session's raw audio is kept.
    public func setAudioPath(_ path: String?, forSession id: Int64) throws {
        try database.write { db in try db.execute("UPDATE sessions SET audio_path = ? WHERE id = ?", [path, id]) }
    }

    /// Inserts a session row with status "recording" and returns its id; with `importKey`, nil
    /// when a session with that key is stored already (also one that another writer stored while
    /// this one was deciding: the key is unique, and the insert waits for that writer's commit).
    static func insertSession(
        _ db: any SQLConnection, startedAt: Date, source: SessionSource, planJSON: String, configurationJSON: String,
        input: String, frameInterval: Double, latency: Double, audioPath: String?, importKey: String? = nil, patient: Int64? = nil
    ) throws -> Int64? {
        try db.row(
            """
            INSERT INTO sessions (started_at, source, status, plan_json, configuration_json, input, frame_interval_s, latency_s,
            audio_path, import_key, saved_at, patient_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (import_key) DO NOTHING RETURNING id
            """,
            [startedAt.timeIntervalSince1970, source.rawValue, SessionStatus.recording.rawValue, planJSON,
             configurationJSON, input, frameInterval, latency, audioPath, importKey, Date().timeIntervalSince1970, patient]
        )?.get("id")
    }

    /// Writes a session's frames, events (numbered from `firstEvent`), breaths and sets (replacing
    /// any with the same numbers), its summary and when it was saved; with `closing`, also its
    /// status, end and warnings. Without, the session is being recorded still: one marked
    /// interrupted while its saves failed for longer than ``abandonedAfter`` is recording again.
    /// Writing the same again changes nothing, so a flush whose commit was not acknowledged (the
    /// connection lost as it committed) can be sent again.
    static func saveMeasurements(
        _ db: any SQLConnection, session id: Int64, frames: [SessionFrame], events: [SessionEvent], firstEvent: Int,
        breaths: some Collection<Breath>, sets: some Collection<TherapySet>, summary: SessionSummary,
        closing: (status: SessionStatus, endedAt: Date, warnings: [String])?
    ) throws {
        try insert(
            db, into: "frames", ["session_id", "t", "pitch_hz", "pressure_cmh2o", "exhaling", "confidence", "level_db", "signal"],
            frames.map { frame in
                [id, frame.time, frame.pitch, frame.pressure, frame.exhaling, frame.confidence, frame.levelDB, frame.signal?.rawValue]
            },
            replacingOn: ["session_id", "t"])
        try insert(
            db, into: "events", ["session_id", "seq", "type", "time_s", "duration_s", "breath", "set", "breath_in_set"],
            events.enumerated().map { offset, event in
                [id, firstEvent + offset, event.kind.rawValue, event.time, event.duration, event.breath, event.set, event.breathInSet]
            },
            replacingOn: ["session_id", "seq"])
        try insert(
            db, into: "breaths",
            ["session_id", "index", "set", "start_s", "end_s", "duration_s", "mean_pressure_cmh2o", "min_pressure_cmh2o",
             "max_pressure_cmh2o", "mean_pitch_hz", "share_in_target", "flutter_share", "unmeasured", "signal"],
            try breaths.map { breath in
                [id, breath.index, breath.set, breath.start, breath.end, breath.duration, breath.meanPressure, breath.minPressure,
                 breath.maxPressure, breath.meanPitch, breath.shareInTarget, breath.flutterShare,
                 try breath.unmeasured.map(HistoryStore.json), try breath.signal.map(HistoryStore.json)]
            },
            replacingOn: ["session_id", "index"])
        try insert(
            db, into: "sets",
            ["session_id", "index", "start_s", "end_s", "breaths", "huff_coughs", "mean_pressure_cmh2o", "share_in_target"],
            sets.map { set in
                [id, set.index, set.start, set.end, set.breathCount, set.huffCoughs, set.meanPressure, set.shareInTarget]
            },
            replacingOn: ["session_id", "index"])
        try db.execute(
            """
            UPDATE sessions SET duration_s = ?, summary_json = ?, breath_count = ?, set_count = ?, mean_pressure_cmh2o = ?,
            share_in_target = ?, exhalation_time_s = ?, saved_at = ? WHERE id = ?
            """,
            [summary.duration, try json(summary), summary.breathCount, summary.setCount, summary.meanPressure,
             summary.zoneShares?.within, summary.exhalationTime, Date().timeIntervalSince1970, id])
        if closing == nil {
            try db.execute(
                "UPDATE sessions SET status = ?, ended_at = NULL, warnings_json = '[]' WHERE id = ? AND status = ?",
                [SessionStatus.recording.rawValue, id, SessionStatus.interrupted.rawValue])
        }
        if let closing {
            try db.execute(
                "UPDATE sessions SET status = ?, ended_at = ?, warnings_json = ? WHERE id = ?",
                [closing.status.rawValue, closing.endedAt.timeIntervalSince1970, try json(closing.warnings), id])
        }
    }

    /// Most rows in one INSERT: 8 columns each stay under SQLite's 32,766 arguments and
    /// PostgreSQL's 65,535.
    static let rowsPerInsert = 500

    /// Inserts rows in statements of up to ``rowsPerInsert``; with `replacingOn`, a row whose key
    /// columns are already stored replaces it.
    static func insert(
        _ db: any SQLConnection, into table: String, _ columns: [String], _ rows: [[any SQLArgument]], replacingOn key: [String] = []
    ) throws {
        let names = columns.map { "\"\($0)\"" }
        let placeholders = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        var conflict = ""
        if !key.isEmpty {
            let updates = names.filter { !key.map { "\"\($0)\"" }.contains($0) }.map { "\($0) = excluded.\($0)" }
            conflict = " ON CONFLICT (" + key.map { "\"\($0)\"" }.joined(separator: ", ") + ") DO UPDATE SET " + updates.joined(separator: ", ")
        }
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(rows.count, start + rowsPerInsert)]
            let sql = "INSERT INTO \(table) (" + names.joined(separator: ", ") + ") VALUES "
                + Array(repeating: placeholders, count: chunk.count).joined(separator: ", ") + conflict
            try db.execute(sql, Array(chunk.joined()))
            start += chunk.count
        }
    }
}
