import Foundation
import OPEPKit

/// A session in the list: when, how long, what was found.
public struct SessionRow: Sendable, Hashable, Codable {
    public var id: Int64
    /// ISO 8601, UTC.
    public var startedAt: String
    public var durationS: Double
    public var breaths: Int
    public var sets: Int
    public var meanPressureCmH2O: Double?
    public var shareInTarget: Double?
    public var source: SessionSource
    public var status: SessionStatus
    /// The patient whose session it is (``Patient``); nil in a personal history.
    public var patientID: Int64? = nil

    enum CodingKeys: String, CodingKey {
        case id, startedAt = "started_at", durationS = "duration_s", breaths, sets
        case meanPressureCmH2O = "mean_pressure_cmh2o", shareInTarget = "share_in_target", source, status
        case patientID = "patient_id"
    }
}

/// One session with everything found in it.
public struct SessionDetail: Sendable, Encodable {
    public var session: SessionRow
    /// Nil until the first flush of a session still being recorded.
    public var summary: SessionSummary?
    public var breaths: [Breath]
    public var sets: [TherapySet]
    public var events: [SessionEvent]
    public var plan: TherapyPlan
}

/// A final frame as the history keeps it (20 per second).
public struct StoredFrame: Sendable, Hashable {
    public var time: Double
    public var pitch: Double?
    public var pressure: Double?
    public var exhaling: Bool
    public var confidence: Double
    public var levelDB: Double
    /// The signal check's reason for a sound without a pitch (nil in rows stored before it).
    public var signal: SignalProblem?
}

/// Sessions of one day, for the trend charts.
public struct TrendDay: Sendable, Hashable, Codable {
    /// The local calendar day, `YYYY-MM-DD`.
    public var date: String
    public var sessions: Int
    public var breaths: Int
    /// Share of the day's flutter time in the target, weighted by each session's exhalation time.
    public var shareInTarget: Double?
    /// Mean pressure of the day, weighted likewise, in cmH2O.
    public var meanPressureCmH2O: Double?

    enum CodingKeys: String, CodingKey {
        case date, sessions, breaths, shareInTarget = "share_in_target", meanPressureCmH2O = "mean_pressure_cmh2o"
    }
}

extension HistoryStore {
    /// Sessions newest first, optionally those started within `[from, to)`, and only those of the
    /// patient `patient` when given.
    public func sessions(from: Date? = nil, to: Date? = nil, limit: Int? = nil, patient: Int64? = nil) throws -> [SessionRow] {
        var sql = "SELECT * FROM sessions WHERE started_at >= ? AND started_at < ?"
        var arguments: [any SQLArgument] = [from?.timeIntervalSince1970 ?? -Double.greatestFiniteMagnitude,
                                             to?.timeIntervalSince1970 ?? Double.greatestFiniteMagnitude]
        if let patient {
            sql += " AND patient_id = ?"
            arguments.append(patient)
        }
        sql += " ORDER BY started_at DESC, id DESC"
        if let limit {
            sql += " LIMIT ?"
            arguments.append(limit)
        }
        return try database.read { db in try db.rows(sql, arguments).map(Self.sessionRow) }
    }

    /// One session with its summary, breaths, sets, events and plan; nil when there is none.
    public func session(_ id: Int64) throws -> SessionDetail? {
        try database.read { db in
            guard let row = try db.row("SELECT * FROM sessions WHERE id = ?", [id]) else { return nil }
            let summary = try (row.get("summary_json") as String?).map { try Self.decode(SessionSummary.self, $0) }
            return SessionDetail(
                session: try Self.sessionRow(row), summary: summary,
                breaths: try Self.breaths(db, id), sets: try Self.sets(db, id), events: try Self.events(db, id),
                plan: try Self.decode(TherapyPlan.self, row.get("plan_json")))
        }
    }

    /// Whether the session `id` is the patient `patient`'s.
    public func session(_ id: Int64, belongsTo patient: Int64) throws -> Bool {
        try database.read { db in try db.row("SELECT 1 FROM sessions WHERE id = ? AND patient_id = ?", [id, patient]) != nil }
    }

    /// A session's final frames (20 per second), oldest first; nil when there is no such session.
    public func frames(_ id: Int64) throws -> [StoredFrame]? {
        try database.read { db in
            guard try db.row("SELECT 1 FROM sessions WHERE id = ?", [id]) != nil else { return nil }
            return try Self.frames(db, id)
        }
    }

    /// Sessions, breaths, share in target and mean pressure for each local day with sessions in
    /// the last `days` days up to `now`, oldest first; only the sessions of the patient `patient`
    /// when given.
    public func trends(days: Int, now: Date = Date(), calendar: Calendar = .current, patient: Int64? = nil) throws -> [TrendDay] {
        let start = calendar.date(byAdding: .day, value: -(max(days, 1) - 1), to: calendar.startOfDay(for: now)) ?? now
        var arguments: [any SQLArgument] = [start.timeIntervalSince1970]
        if let patient { arguments.append(patient) }
        let rows = try database.read { db in
            try db.rows(
                """
                SELECT started_at, breath_count, share_in_target, mean_pressure_cmh2o, exhalation_time_s
                FROM sessions WHERE started_at >= ?\(patient == nil ? "" : " AND patient_id = ?") ORDER BY started_at
                """,
                arguments)
        }
        let formatter = DateFormatter()
        formatter.calendar = calendar
        formatter.timeZone = calendar.timeZone
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        var order: [String] = []
        var byDay: [String: SessionTally] = [:]
        for row in rows {
            let day = formatter.string(from: Date(timeIntervalSince1970: try row.get("started_at")))
            if byDay[day] == nil { order.append(day) }
            try byDay[day, default: SessionTally()].add(row)
        }
        return order.map { day in
            let tally = byDay[day]!
            return TrendDay(
                date: day, sessions: tally.sessions, breaths: tally.breaths, shareInTarget: tally.shareInTarget,
                meanPressureCmH2O: tally.meanPressureCmH2O)
        }
    }

    /// A session as `opep analyze --format json` writes a recording; nil when there is none.
    public func exportAnalysis(_ id: Int64) throws -> SessionAnalysis? {
        try database.read { db in
            guard let row = try db.row("SELECT * FROM sessions WHERE id = ?", [id]) else { return nil }
            let configuration = try Self.decode(SessionAnalyzer.Configuration.self, row.get("configuration_json"))
            let summary: SessionSummary
            if let json = try row.get("summary_json") as String? {
                summary = try Self.decode(SessionSummary.self, json)
            } else {
                summary = try SessionAnalyzer(configuration: configuration).report.summary
            }
            let audioPath = try row.get("audio_path") as String?
            let settings = SessionAnalysis.Settings(
                file: audioPath ?? "session \(id)", format: try row.get("input"), configuration: configuration,
                frameIntervalS: try row.get("frame_interval_s"), latencyS: try row.get("latency_s"),
                warnings: try Self.decode([String].self, row.get("warnings_json")))
            return SessionAnalysis(
                settings: settings, summary: summary, breaths: try Self.breaths(db, id), sets: try Self.sets(db, id),
                events: try Self.events(db, id))
        }
    }

    /// The export as JSON text (pretty), the same object as `opep analyze --format json`.
    public func exportJSON(_ id: Int64) throws -> String? {
        try exportAnalysis(id).map { try reportJSON($0, pretty: true) }
    }

    /// A session's frames as the frame CSV of `opep analyze --format csv` (20 rows per second
    /// instead of 100), with a final newline; nil when there is no such session.
    public func exportCSV(_ id: Int64) throws -> String? {
        let found = try database.read { db -> (SessionAnalyzer.Configuration, [StoredFrame])? in
            guard let row = try db.row("SELECT configuration_json FROM sessions WHERE id = ?", [id]) else { return nil }
            let json: String = try row.get("configuration_json")
            return (try Self.decode(SessionAnalyzer.Configuration.self, json), try Self.frames(db, id))
        }
        guard let (configuration, frames) = found else { return nil }
        var text = FrameCSV.header + "\n"
        text.reserveCapacity(frames.count * 48)
        for frame in frames {
            text += FrameCSV.row(
                time: frame.time, pitch: frame.pitch, pressure: frame.pressure, confidence: frame.confidence,
                exhaling: frame.exhaling, zone: frame.pressure.map { configuration.target.zone(of: $0) }, levelDB: frame.levelDB,
                signal: frame.signal)
            text += "\n"
        }
        return text
    }

    // MARK: Rows

    /// ISO 8601 in UTC, e.g. `2026-11-21T05:55:58Z`.
    public static func iso8601(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    static func sessionRow(_ row: SQLRow) throws -> SessionRow {
        SessionRow(
            id: try row.get("id"), startedAt: iso8601(Date(timeIntervalSince1970: try row.get("started_at"))),
            durationS: try row.get("duration_s"), breaths: try row.get("breath_count"), sets: try row.get("set_count"),
            meanPressureCmH2O: try row.get("mean_pressure_cmh2o"), shareInTarget: try row.get("share_in_target"),
            source: SessionSource(rawValue: try row.get("source")) ?? .file,
            status: SessionStatus(rawValue: try row.get("status")) ?? .interrupted,
            patientID: try row.get("patient_id"))
    }

    static func breaths(_ db: any SQLConnection, _ id: Int64) throws -> [Breath] {
        try db.rows(#"SELECT * FROM breaths WHERE session_id = ? ORDER BY "index""#, [id]).map { try $0.decode(Breath.self) }
    }

    static func sets(_ db: any SQLConnection, _ id: Int64) throws -> [TherapySet] {
        try db.rows(#"SELECT * FROM sets WHERE session_id = ? ORDER BY "index""#, [id]).map { try $0.decode(TherapySet.self) }
    }

    static func events(_ db: any SQLConnection, _ id: Int64) throws -> [SessionEvent] {
        SessionAnalysis.numberingBreathsInSets(
            try db.rows("SELECT * FROM events WHERE session_id = ? ORDER BY seq", [id]).map { try $0.decode(SessionEvent.self) })
    }

    static func frames(_ db: any SQLConnection, _ id: Int64) throws -> [StoredFrame] {
        try db.rows("SELECT * FROM frames WHERE session_id = ? ORDER BY t", [id]).map { row in
            StoredFrame(
                time: try row.get("t"), pitch: try row.get("pitch_hz"), pressure: try row.get("pressure_cmh2o"),
                exhaling: try row.get("exhaling"), confidence: try row.get("confidence"), levelDB: try row.get("level_db"),
                signal: (try row.get("signal") as String?).flatMap(SignalProblem.init(rawValue:)))
        }
    }
}

/// Sessions added up: how many, their breaths, and their share in target and mean pressure weighted
/// by each session's exhalation time (a session without any weighs nothing), as the trends and a
/// patient's adherence count them.
struct SessionTally {
    var sessions = 0
    var breaths = 0
    private var share = 0.0, shareWeight = 0.0
    private var pressure = 0.0, pressureWeight = 0.0

    /// Adds a session row (`breath_count`, `exhalation_time_s`, `share_in_target`,
    /// `mean_pressure_cmh2o`).
    mutating func add(_ row: SQLRow) throws {
        sessions += 1
        breaths += try row.get("breath_count") as Int
        let weight = max(try row.get("exhalation_time_s") as Double, 0)
        guard weight > 0 else { return }
        if let value = try row.get("share_in_target") as Double? {
            share += value * weight
            shareWeight += weight
        }
        if let value = try row.get("mean_pressure_cmh2o") as Double? {
            pressure += value * weight
            pressureWeight += weight
        }
    }

    var shareInTarget: Double? { shareWeight > 0 ? share / shareWeight : nil }
    var meanPressureCmH2O: Double? { pressureWeight > 0 ? pressure / pressureWeight : nil }
}
