import Foundation
import OPEPKit

/// Why a session document cannot go into the history: the field, the value found and what it
/// should be.
public struct SessionDocumentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where in the document, with its JSON keys, e.g. `breaths[2].end_s`.
    public var field: String
    /// The value found, as text.
    public var value: String
    /// What the value should be.
    public var expected: String

    public init(field: String, value: String, expected: String) {
        self.field = field
        self.value = value
        self.expected = expected
    }

    public var description: String { "\(field) is \(value); it must be \(expected)" }
}

/// What ``HistoryStore/importSession(_:source:defaultStart:)`` did.
public struct SessionImport: Sendable, Hashable {
    /// The session's id in the history.
    public var id: Int64
    /// False when the same document had been imported before: nothing was written.
    public var created: Bool
}

extension SessionAnalysis {
    /// Checks what is cheap to check: the analysis settings are usable, every number is finite,
    /// breaths and sets are numbered from 1 in increasing order and none ends before it starts.
    public func validate() throws(SessionDocumentError) {
        do {
            try settings.configuration.validate()
        } catch {
            throw SessionDocumentError(field: "settings.\(error.parameter)", value: "\(error.value)", expected: error.limit)
        }
        try check("settings.frame_interval_s", settings.frameIntervalS, settings.frameIntervalS > 0, "above 0")
        try check("settings.latency_s", settings.latencyS, settings.latencyS >= 0, "at least 0")
        if let recordedAt = settings.recordedAt, Self.date(recordedAt) == nil {
            throw SessionDocumentError(field: "settings.recorded_at", value: "\"\(recordedAt)\"", expected: "an ISO 8601 time such as 2026-11-21T05:55:58Z")
        }

        try check("summary.duration_s", summary.duration, summary.duration >= 0, "at least 0")
        try check("summary.exhalation_time_s", summary.exhalationTime, summary.exhalationTime >= 0, "at least 0")
        try check("summary.mean_breath_duration_s", summary.meanBreathDuration)
        try check("summary.mean_pressure_cmh2o", summary.meanPressure)
        try check("summary.mean_pitch_hz", summary.meanPitch)
        try check("summary.exhalation_inhalation_ratio", summary.exhalationInhalationRatio)
        if let shares = summary.zoneShares {
            try check("summary.time_share.below", shares.below)
            try check("summary.time_share.in", shares.within)
            try check("summary.time_share.above", shares.above)
        }
        for (field, count) in [("breaths", summary.breathCount), ("sets", summary.setCount), ("huff_coughs", summary.huffCoughCount), ("inhalations_heard", summary.inhalationsHeard)] {
            try check("summary.\(field)", Double(count), count >= 0, "at least 0")
        }

        var previous = 0
        for (position, breath) in breaths.enumerated() {
            let name = "breaths[\(position)]"
            try check("\(name).index", Double(breath.index), breath.index > previous, position == 0 ? "at least 1" : "above \(previous), the index before it")
            previous = breath.index
            try check("\(name).set", Double(breath.set), breath.set >= 1, "at least 1")
            try check("\(name).start_s", breath.start, breath.start >= 0, "at least 0")
            try check("\(name).end_s", breath.end, breath.end >= breath.start, "at least start_s (\(breath.start))")
            try check("\(name).duration_s", breath.duration, breath.duration >= 0, "at least 0")
            try check("\(name).mean_pressure_cmh2o", breath.meanPressure)
            try check("\(name).min_pressure_cmh2o", breath.minPressure)
            try check("\(name).max_pressure_cmh2o", breath.maxPressure)
            try check("\(name).mean_pitch_hz", breath.meanPitch)
            try check("\(name).share_in_target", breath.shareInTarget)
            try check("\(name).flutter_share", breath.flutterShare)
        }

        previous = 0
        for (position, set) in sets.enumerated() {
            let name = "sets[\(position)]"
            try check("\(name).index", Double(set.index), set.index > previous, position == 0 ? "at least 1" : "above \(previous), the index before it")
            previous = set.index
            try check("\(name).start_s", set.start, set.start >= 0, "at least 0")
            try check("\(name).end_s", set.end, set.end >= set.start, "at least start_s (\(set.start))")
            try check("\(name).breaths", Double(set.breathCount), set.breathCount >= 0, "at least 0")
            try check("\(name).huff_coughs", Double(set.huffCoughs), set.huffCoughs >= 0, "at least 0")
            try check("\(name).mean_pressure_cmh2o", set.meanPressure)
            try check("\(name).share_in_target", set.shareInTarget)
        }

        for (position, event) in events.enumerated() {
            let name = "events[\(position)]"
            try check("\(name).time_s", event.time)
            try check("\(name).duration_s", event.duration)
            if let breath = event.breath { try check("\(name).breath", Double(breath), breath >= 1, "at least 1") }
            if let set = event.set { try check("\(name).set", Double(set), set >= 1, "at least 1") }
            if let number = event.breathInSet {
                try check("\(name).breath_in_set", Double(number), number >= 1, "at least 1")
            }
        }
    }

    /// A `recorded_at` time: ISO 8601, with or without fractional seconds.
    static func date(_ text: String) -> Date? {
        (try? Date(text, strategy: .iso8601)) ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
    }

    private func check(_ field: String, _ value: Double?, _ condition: Bool = true, _ expected: String = "a finite number") throws(SessionDocumentError) {
        guard let value else { return }
        guard value.isFinite else { throw SessionDocumentError(field: field, value: "\(value)", expected: "a finite number") }
        guard condition else { throw SessionDocumentError(field: field, value: "\(value)", expected: expected) }
    }
}

extension HistoryStore {
    /// Saves a session analysed elsewhere, from its document (`opep analyze --format json`, the
    /// phone's export), with its summary, breaths, sets and events, and a plan with the
    /// document's target and device (the rest from the saved plan). It has no frames.
    ///
    /// Imports are idempotent: a session already imported (the same ``ImportKey``: its duration,
    /// breaths and sets, whatever release wrote or reads the document) is not saved again, and its
    /// id is returned.
    /// - Parameters:
    ///   - source: where the session came from (default ``SessionSource/imported``).
    ///   - defaultStart: the session's start when the document has no `recorded_at`.
    ///   - patient: the patient whose session it is (``Patient``); their sessions are told apart
    ///     from everyone else's, so the same document from another patient or from the owner is
    ///     another session. Nil in a personal history.
    /// - Throws: ``SessionDocumentError`` when the document fails ``SessionAnalysis/validate()``;
    ///   ``HistoryError`` when `patient` is not in the history.
    @discardableResult
    public func importSession(
        _ document: SessionAnalysis, source: SessionSource = .imported, defaultStart: Date, patient: Int64? = nil
    ) throws -> SessionImport {
        try document.validate()
        let key = (patient.map { "patient-\($0):" } ?? "") + ImportKey(document).text
        let settings = document.settings
        let startedAt = settings.recordedAt.flatMap(SessionAnalysis.date) ?? defaultStart
        var plan: TherapyPlan
        if let patient {
            guard let theirs = try self.patient(patient) else { throw HistoryError("\(location): no patient \(patient)") }
            plan = theirs.plan
        } else {
            plan = try self.plan()
        }
        plan.target = settings.target
        plan.device = settings.device
        let planJSON = try Self.json(plan)
        let configurationJSON = try Self.json(settings.configuration)
        return try database.write { db in
            func stored() throws -> SessionImport? {
                try db.row("SELECT id FROM sessions WHERE import_key = ?", [key]).map { SessionImport(id: try $0.get("id"), created: false) }
            }
            if let stored = try stored() { return stored }
            guard let id = try Self.insertSession(
                db, startedAt: startedAt, source: source, planJSON: planJSON, configurationJSON: configurationJSON,
                input: settings.format, frameInterval: settings.frameIntervalS, latency: settings.latencyS, audioPath: nil,
                importKey: key, patient: patient)
            else {
                guard let stored = try stored() else { throw HistoryError("\(location): session \(key) is neither new nor stored") }
                return stored
            }
            try Self.saveMeasurements(
                db, session: id, frames: [], events: document.events, firstEvent: 0, breaths: document.breaths, sets: document.sets,
                summary: document.summary,
                closing: (.complete, startedAt.addingTimeInterval(document.summary.duration), settings.warnings))
            return SessionImport(id: id, created: true)
        }
    }
}
