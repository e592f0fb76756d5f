import Foundation
import OPEPKit

/// The analysis of one session as `opep analyze --format json` writes it, and as the history
/// exports a saved session: `{settings, summary, breaths, sets, events}`. The frames are not in
/// it; they go to the frame CSV (``FrameCSV``).
public struct SessionAnalysis: Encodable, Sendable {
    /// How the sound was read and analysed.
    public struct Settings: Encodable, Sendable {
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
        public var tracker: FlutterPitchTracker.Configuration
        public var detector: ExhalationDetector.Configuration
        public var warnings: [String]

        public init(
            file: String, format: String, configuration: SessionAnalyzer.Configuration,
            frameIntervalS: Double, latencyS: Double, warnings: [String]
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
            tracker = configuration.tracker
            detector = configuration.detector
            self.warnings = warnings
        }
    }

    public var settings: Settings
    public var summary: SessionSummary
    public var breaths: [Breath]
    public var sets: [TherapySet]
    public var events: [SessionEvent]

    public init(settings: Settings, summary: SessionSummary, breaths: [Breath], sets: [TherapySet], events: [SessionEvent]) {
        self.settings = settings
        self.summary = summary
        self.breaths = breaths
        self.sets = sets
        self.events = events
    }
}

/// JSON with snake_case keys, sorted, as every report and profile is written.
public func reportJSON<T: Encodable>(_ value: T, pretty: Bool) throws -> String {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

/// One row per frame: `time_s,pitch_hz,pressure_cmh2o,confidence,exhaling,zone,level_db`.
public enum FrameCSV {
    public static let header = "time_s,pitch_hz,pressure_cmh2o,confidence,exhaling,zone,level_db"

    public static func row(_ frame: SessionFrame) -> String {
        row(time: frame.time, pitch: frame.pitch, pressure: frame.pressure, confidence: frame.confidence,
            exhaling: frame.exhaling, zone: frame.zone, levelDB: frame.levelDB)
    }

    public static func row(
        time: Double, pitch: Double?, pressure: Double?, confidence: Double, exhaling: Bool, zone: PressureZone?, levelDB: Double
    ) -> String {
        let pitch = pitch.map { fixed($0, 3) } ?? ""
        let pressure = pressure.map { fixed($0, 3) } ?? ""
        return "\(fixed(time, 3)),\(pitch),\(pressure),\(fixed(confidence, 3)),\(exhaling ? 1 : 0),\(zone?.rawValue ?? ""),\(fixed(levelDB, 1))"
    }

    private static func fixed(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }
}
