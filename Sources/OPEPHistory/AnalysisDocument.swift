import Foundation
import OPEPKit

/// The analysis of one session as `opep analyze --format json` writes it, and as the history
/// exports a saved session: `{schema_version, settings, summary, breaths, sets, events}`
/// (docs/analysis-document.md). The frames are not in it; they go to the frame CSV (``FrameCSV``).
///
/// Read a document back with ``init(json:)``: its tracker and detector settings are written with
/// `reportJSON`'s snake_case keys, which a plain `JSONDecoder` does not map back.
public struct SessionAnalysis: Codable, Sendable {
    /// How the sound was read and analysed.
    public struct Settings: Codable, Sendable {
        /// The recording's path, or a name for a live session.
        public var file: String
        /// What the input was, e.g. "WAV, 16-bit integer, 44100 Hz, mono".
        public var format: String
        public var sampleRate: Double
        public var device: DeviceProfile
        public var target: TargetRange
        public var frameIntervalS: Double
        public var latencyS: Double
        public var noiseFloorDb: Double?
        public var setPauseS: Double
        /// The pause that ends a set after huff coughs, in seconds (a document written before it
        /// was recorded reads the default capped at the set pause, as it was analysed).
        public var huffSetPauseS: Double
        /// How soon before an exhalation a sound taken for a huff cough was the breath in before
        /// it, in seconds (a document written before it was recorded reads the default, 3.5).
        public var inhalationLeadS: Double
        /// How far either side of a stored frame the tracker's pitch was averaged, in seconds (0
        /// when read from a document written before the average: its frames are the tracker's).
        public var pitchAverageS: Double
        public var tracker: FlutterPitchTracker.Configuration
        public var detector: ExhalationDetector.Configuration
        /// The signal check's settings (today's defaults when read from a document written
        /// before the check).
        public var signal: SignalCheck.Configuration
        public var warnings: [String]
        /// When the session started, ISO 8601 in UTC (e.g. `2026-11-21T05:55:58Z`), when known:
        /// the phone writes it, `opep analyze` does not.
        public var recordedAt: String?

        enum CodingKeys: String, CodingKey {
            case file, format, sampleRate = "sample_rate", device, target, frameIntervalS = "frame_interval_s"
            case latencyS = "latency_s", noiseFloorDb = "noise_floor_db", setPauseS = "set_pause_s", tracker, detector
            case pitchAverageS = "pitch_average_s", huffSetPauseS = "huff_set_pause_s", inhalationLeadS = "inhalation_lead_s"
            case signal, warnings, recordedAt = "recorded_at"
        }

        public init(
            file: String, format: String, configuration: SessionAnalyzer.Configuration,
            frameIntervalS: Double, latencyS: Double, warnings: [String], recordedAt: String? = nil
        ) {
            self.file = file
            self.format = format
            sampleRate = configuration.sampleRate
            device = configuration.device
            target = configuration.target
            self.frameIntervalS = frameIntervalS
            self.latencyS = latencyS
            noiseFloorDb = configuration.detector.noiseFloorDB
            setPauseS = configuration.setPause
            huffSetPauseS = configuration.huffSetPause
            inhalationLeadS = configuration.inhalationLead
            pitchAverageS = configuration.pitchAverageTime
            tracker = configuration.tracker
            detector = configuration.detector
            signal = configuration.signal
            self.warnings = warnings
            self.recordedAt = recordedAt
        }

        /// Decodes tolerantly: the signal check's settings, missing from a document written
        /// before the check, take today's defaults; a missing pitch average is none.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            file = try c.decode(String.self, forKey: .file)
            format = try c.decode(String.self, forKey: .format)
            sampleRate = try c.decode(Double.self, forKey: .sampleRate)
            device = try c.decode(DeviceProfile.self, forKey: .device)
            target = try c.decode(TargetRange.self, forKey: .target)
            frameIntervalS = try c.decode(Double.self, forKey: .frameIntervalS)
            latencyS = try c.decode(Double.self, forKey: .latencyS)
            noiseFloorDb = try c.decodeIfPresent(Double.self, forKey: .noiseFloorDb)
            setPauseS = try c.decode(Double.self, forKey: .setPauseS)
            huffSetPauseS = try c.decodeIfPresent(Double.self, forKey: .huffSetPauseS)
                ?? SessionAnalyzer.Configuration.defaultHuffSetPause(setPause: setPauseS)
            inhalationLeadS = try c.decodeIfPresent(Double.self, forKey: .inhalationLeadS)
                ?? SessionAnalyzer.Configuration.defaultInhalationLead
            pitchAverageS = try c.decodeIfPresent(Double.self, forKey: .pitchAverageS) ?? 0
            tracker = try c.decode(FlutterPitchTracker.Configuration.self, forKey: .tracker)
            detector = try c.decode(ExhalationDetector.Configuration.self, forKey: .detector)
            signal = try c.decodeIfPresent(SignalCheck.Configuration.self, forKey: .signal) ?? SignalCheck.Configuration()
            warnings = try c.decode([String].self, forKey: .warnings)
            recordedAt = try c.decodeIfPresent(String.self, forKey: .recordedAt)
        }

        /// The analyzer's configuration these settings describe.
        public var configuration: SessionAnalyzer.Configuration {
            var configuration = SessionAnalyzer.Configuration(sampleRate: tracker.sampleRate, device: device, target: target)
            configuration.tracker = tracker
            configuration.detector = detector
            configuration.signal = signal
            configuration.setPause = setPauseS
            configuration.huffSetPause = huffSetPauseS
            configuration.inhalationLead = inhalationLeadS
            configuration.pitchAverageTime = pitchAverageS
            return configuration
        }
    }

    /// The document's layout (``AnalysisDocumentSchema/version`` when written by this release; 0
    /// for documents written before it was recorded).
    public var schemaVersion: Int
    public var settings: Settings
    public var summary: SessionSummary
    public var breaths: [Breath]
    public var sets: [TherapySet]
    public var events: [SessionEvent]

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", settings, summary, breaths, sets, events
    }

    public init(settings: Settings, summary: SessionSummary, breaths: [Breath], sets: [TherapySet], events: [SessionEvent]) {
        schemaVersion = AnalysisDocumentSchema.version
        self.settings = settings
        self.summary = summary
        self.breaths = breaths
        self.sets = sets
        self.events = events
    }

    /// The document of a finished run: its settings, `report` and the events it handed out.
    public init(run: AnalysisRun, report: SessionReport, file: String, format: String, warnings: [String], recordedAt: String? = nil) {
        let settings = Settings(
            file: file, format: format, configuration: run.configuration, frameIntervalS: run.frameInterval,
            latencyS: run.latency, warnings: warnings, recordedAt: recordedAt)
        self.init(settings: settings, summary: report.summary, breaths: report.breaths, sets: report.sets, events: run.events)
    }

    /// Decodes tolerantly: a document without a version is version 0, one without breaths, sets or
    /// events has none, events of types this release does not know are skipped, breath events
    /// without `breath_in_set` are numbered in their sets, and keys it does not know are ignored.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        schemaVersion = try c.decodeIfPresent(Int.self, forKey: .schemaVersion) ?? 0
        settings = try c.decode(Settings.self, forKey: .settings)
        summary = try c.decode(SessionSummary.self, forKey: .summary)
        breaths = try c.decodeIfPresent([Breath].self, forKey: .breaths) ?? []
        sets = try c.decodeIfPresent([TherapySet].self, forKey: .sets) ?? []
        events = Self.numberingBreathsInSets((try c.decodeIfPresent([EventEntry].self, forKey: .events) ?? []).compactMap(\.event))
    }

    /// `events` with every breath event's number in its set, where it was written before
    /// `breath_in_set` existed: the breath's number counted from the first breath of its set.
    static func numberingBreathsInSets(_ events: [SessionEvent]) -> [SessionEvent] {
        var firstBreath: [Int: Int] = [:]
        for event in events {
            if let breath = event.breath, let set = event.set { firstBreath[set] = min(firstBreath[set] ?? breath, breath) }
        }
        return events.map { event in
            var event = event
            if event.breathInSet == nil, let breath = event.breath, let first = event.set.flatMap({ firstBreath[$0] }) {
                event.breathInSet = breath - first + 1
            }
            return event
        }
    }

    /// An event of a type this release knows, decoded strictly; nil for a type added by a later
    /// release, which is skipped.
    private struct EventEntry: Decodable {
        let event: SessionEvent?

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: TypeKey.self)
            let type = try c.decode(String.self, forKey: .type)
            event = SessionEvent.Kind(rawValue: type) == nil ? nil : try SessionEvent(from: decoder)
        }

        private enum TypeKey: String, CodingKey { case type }
    }

    /// Decodes a document as ``reportJSON(_:pretty:)`` writes it.
    /// - Throws: `DecodingError` when `json` is not JSON of this shape.
    public init(json: Data) throws {
        self = try Self.decoder.decode(SessionAnalysis.self, from: json)
    }

    /// A decoder for `reportJSON`'s keys. Most records name their snake_case keys themselves, so
    /// keys are used as they are, except in `settings.tracker` and `settings.detector`: those
    /// configurations have camelCase keys that `.convertToSnakeCase` rewrote (`onMarginDB` became
    /// `on_margin_db`, which `.convertFromSnakeCase` would not turn back), so each key is matched
    /// to the property whose name it spells, ignoring case and underscores.
    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in
            let key = path[path.count - 1]
            guard path.count == 3, path[0].stringValue == CodingKeys.settings.stringValue,
                let name = configurationKeys[path[1].stringValue]?[folded(key.stringValue)]
            else { return key }
            return DocumentKey(stringValue: name)
        }
        return decoder
    }()

    /// For the tracker, the detector and the signal check: each property's name by its folded
    /// spelling (and, for the tracker, the keys it once counted in frames).
    private static let configurationKeys: [String: [String: String]] = [
        Settings.CodingKeys.tracker.stringValue: propertyNames(FlutterPitchTracker.Configuration(sampleRate: 44100))
            .merging(FlutterPitchTracker.Configuration.FrameCountKeys.allCases.map { (folded($0.stringValue), $0.stringValue) }) { $1 },
        Settings.CodingKeys.detector.stringValue: propertyNames(ExhalationDetector.Configuration()),
        Settings.CodingKeys.signal.stringValue: propertyNames(SignalCheck.Configuration()),
    ]

    private static func propertyNames(_ value: Any) -> [String: String] {
        Dictionary(uniqueKeysWithValues: Mirror(reflecting: value).children.compactMap(\.label).map { (folded($0), $0) })
    }

    private static func folded(_ key: String) -> String {
        key.replacingOccurrences(of: "_", with: "").lowercased()
    }

    private struct DocumentKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// How ``reportJSON(_:keys:pretty:)`` names an object's keys.
public enum JSONKeys: Sendable {
    /// snake_case, as reports, profiles and the analysis document are written.
    case snakeCase
    /// As the type codes them: the live protocol's messages and the settings stored with a session.
    case asCoded
}

/// The one JSON writer of the native side: keys sorted, slashes not escaped, snake_case unless
/// `keys` says otherwise; indented with `pretty`.
public func reportJSON<T: Encodable>(_ value: T, keys: JSONKeys = .snakeCase, pretty: Bool) throws -> String {
    let encoder = JSONEncoder()
    if keys == .snakeCase { encoder.keyEncodingStrategy = .convertToSnakeCase }
    encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

/// One row per frame: `time_s,pitch_hz,pressure_cmh2o,confidence,exhaling,zone,level_db,signal`
/// (`signal`: the signal check's reason for a sound without a pitch; empty in frames stored
/// before the check).
public enum FrameCSV {
    public static let header = "time_s,pitch_hz,pressure_cmh2o,confidence,exhaling,zone,level_db,signal"

    public static func row(_ frame: SessionFrame) -> String {
        row(time: frame.time, pitch: frame.pitch, pressure: frame.pressure, confidence: frame.confidence,
            exhaling: frame.exhaling, zone: frame.zone, levelDB: frame.levelDB, signal: frame.signal)
    }

    public static func row(
        time: Double, pitch: Double?, pressure: Double?, confidence: Double, exhaling: Bool, zone: PressureZone?, levelDB: Double,
        signal: SignalProblem?
    ) -> String {
        let pitch = pitch.map { fixed($0, 3) } ?? ""
        let pressure = pressure.map { fixed($0, 3) } ?? ""
        return "\(fixed(time, 3)),\(pitch),\(pressure),\(fixed(confidence, 3)),\(exhaling ? 1 : 0),\(zone?.rawValue ?? ""),\(fixed(levelDB, 1)),\(signal?.rawValue ?? "")"
    }

    private static func fixed(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }
}
