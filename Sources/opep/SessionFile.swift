import Foundation
import OPEPAudio
import OPEPKit

/// Everything the analysis of one recording produced, except the frames (those are streamed).
struct SessionAnalysis: Encodable {
    struct Settings: Encodable {
        var file: String
        var format: String
        var sampleRate: Double
        var device: DeviceProfile
        var target: TargetRange
        var frameIntervalS: Double
        var latencyS: Double
        var noiseFloorDb: Double?
        var setPauseS: Double
        var tracker: FlutterPitchTracker.Configuration
        var detector: ExhalationDetector.Configuration
        var warnings: [String]
    }

    var settings: Settings
    var summary: SessionSummary
    var breaths: [Breath]
    var sets: [TherapySet]
    var events: [SessionEvent]

    /// Streams a recording through the analysis; `onFrame` sees every frame as it becomes final.
    static func run(
        path: String, raw: RawPCMFormat?, options: AnalysisOptions, onFrame: (SessionFrame) throws -> Void = { _ in }
    ) throws -> SessionAnalysis {
        let source = try openSource(path: path, raw: raw)
        let configuration = try options.configuration(sampleRate: source.sampleRate, raw: raw)
        var analyzer: SessionAnalyzer
        do {
            analyzer = try SessionAnalyzer(configuration: configuration)
        } catch {
            throw failure("\(path): \(error)")
        }
        var events: [SessionEvent] = []
        var frameError: (any Error)?
        let collect: (SessionOutput) -> Void = { output in
            switch output {
            case let .frame(frame):
                guard frameError == nil else { return }
                do { try onFrame(frame) } catch { frameError = error }
            case let .event(event):
                events.append(event)
            case .live:
                break
            }
        }
        var buffer: [Float] = []
        while try readChunk(source, path: path, into: &buffer) > 0 {
            analyzer.process(buffer, onOutput: collect)
            if let frameError { throw frameError }
        }
        let report = analyzer.finish(onOutput: collect)
        if let frameError { throw frameError }
        let settings = Settings(
            file: path, format: source.formatDescription, sampleRate: source.sampleRate, device: configuration.device,
            target: configuration.target, frameIntervalS: analyzer.frameInterval, latencyS: analyzer.latency,
            noiseFloorDb: configuration.detector.noiseFloorDB, setPauseS: configuration.setPause,
            tracker: configuration.tracker, detector: configuration.detector, warnings: source.warnings)
        return SessionAnalysis(settings: settings, summary: report.summary, breaths: report.breaths, sets: report.sets, events: events)
    }
}

/// JSON with snake_case keys, sorted, as every report and profile is written.
func reportJSON<T: Encodable>(_ value: T, pretty: Bool) throws -> String {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

/// One row per frame: `time_s,pitch_hz,pressure_cmh2o,confidence,exhaling,zone,level_db`.
enum FrameCSV {
    static let header = "time_s,pitch_hz,pressure_cmh2o,confidence,exhaling,zone,level_db"

    static func row(_ frame: SessionFrame) -> String {
        let pitch = frame.pitch.map { fixed($0, 3) } ?? ""
        let pressure = frame.pressure.map { fixed($0, 3) } ?? ""
        return "\(fixed(frame.time, 3)),\(pitch),\(pressure),\(fixed(frame.confidence, 3)),\(frame.exhaling ? 1 : 0),\(frame.zone?.rawValue ?? ""),\(fixed(frame.levelDB, 1))"
    }
}

/// Buffered text output to standard output or a file.
final class TextOutput {
    private let handle: FileHandle
    private let path: String
    private var pending = ""

    /// Standard output.
    init() {
        handle = .standardOutput
        path = "standard output"
    }

    /// A new file at `path`, replacing any.
    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw failure("\(path): cannot create file")
        }
        self.handle = handle
        self.path = path
    }

    func line(_ text: String) throws {
        pending += text
        pending += "\n"
        if pending.utf8.count >= 1 << 16 { try flush() }
    }

    func flush() throws {
        guard !pending.isEmpty else { return }
        do {
            try handle.write(contentsOf: Data(pending.utf8))
        } catch {
            throw failure("\(path): cannot write (\(error.localizedDescription))")
        }
        pending = ""
    }

    func close() throws {
        try flush()
        if handle !== FileHandle.standardOutput { try? handle.close() }
    }
}
