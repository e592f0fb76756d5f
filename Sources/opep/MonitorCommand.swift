import ArgumentParser
import Foundation
import OPEPAudio
import OPEPKit

struct MonitorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Coach a session live in the terminal: a one-line pressure gauge, then the summary.",
        discussion: """
            Listens to raw PCM on standard input, e.g. `arecord -f FLOAT_LE -r 44100 -c 1 -t raw | \
            opep monitor --sample-rate 44100 --encoding f32le`, or plays a recording at real-time \
            pace with `opep monitor FILE --realtime`. Stop with Ctrl-D (end of input) or Ctrl-C.
            """
    )

    @Argument(help: "A recording to play, or '-' (the default) for raw PCM on standard input.")
    var file: String = "-"

    @Flag(help: "Play a recording at real-time pace, as if it were live.")
    var realtime = false

    @Option(help: "Breaths per set in the plan (for the count and the huff cough cue).")
    var breathsPerSet: Int = 10

    @OptionGroup var raw: RawInputOptions
    @OptionGroup var analysis: AnalysisOptions

    func validate() throws {
        if file == "-", raw.format == nil {
            throw ValidationError("Listening on standard input needs --sample-rate and --encoding (e.g. --sample-rate 44100 --encoding f32le).")
        }
        guard breathsPerSet >= 1, breathsPerSet <= 100 else { throw ValidationError("--breaths-per-set must be between 1 and 100.") }
    }

    func run() throws {
        let source = try openSource(path: file, raw: raw.format)
        let configuration = try analysis.configuration(sampleRate: source.sampleRate, raw: raw.format)
        var analyzer: SessionAnalyzer
        do {
            analyzer = try SessionAnalyzer(configuration: configuration)
        } catch {
            throw failure("\(file): \(error)")
        }
        var gauge = TerminalGauge(target: configuration.target, breathsPerSet: breathsPerSet, color: isatty(STDOUT_FILENO) == 1)
        let chunk = max(1, Int(source.sampleRate / 10))
        var buffer: [Float] = []
        let start = Date()
        var played = 0
        while true {
            let count: Int
            do {
                count = try source.read(into: &buffer, maxFrames: chunk)
            } catch {
                throw failure(error.description)
            }
            guard count > 0 else { break }
            analyzer.process(buffer) { gauge.take($0) }
            played += count
            if realtime {
                let due = Double(played) / source.sampleRate - Date().timeIntervalSince(start)
                if due > 0 { Thread.sleep(forTimeInterval: due) }
            }
        }
        let report = analyzer.finish { gauge.take($0) }
        gauge.end()
        let analysisResult = SessionAnalysis(
            settings: .init(
                file: file, format: source.formatDescription, sampleRate: source.sampleRate, device: configuration.device,
                target: configuration.target, frameIntervalS: analyzer.frameInterval, latencyS: analyzer.latency,
                noiseFloorDb: configuration.detector.noiseFloorDB, setPauseS: configuration.setPause,
                tracker: configuration.tracker, detector: configuration.detector, warnings: source.warnings),
            summary: report.summary, breaths: report.breaths, sets: report.sets, events: gauge.events)
        print(TextReport.render(analysisResult))
    }
}

/// The one-line live gauge: pressure with the target band, zone, pitch, breath and set counts.
struct TerminalGauge {
    let target: TargetRange
    let breathsPerSet: Int
    let color: Bool
    private(set) var events: [SessionEvent] = []
    private var breaths = 0
    private var breathsInSet = 0
    private var startedInSet = 0
    private var exhaling = false
    private var sets = 1
    private var lastDrawn = -1.0
    private var huffCue = false

    init(target: TargetRange, breathsPerSet: Int, color: Bool) {
        self.target = target
        self.breathsPerSet = breathsPerSet
        self.color = color
    }

    mutating func take(_ output: SessionOutput) {
        switch output {
        case let .live(frame):
            if frame.exhaling, !exhaling { startedInSet += 1 }
            exhaling = frame.exhaling
            if frame.time - lastDrawn >= 0.1 {
                lastDrawn = frame.time
                draw(frame)
            }
        case let .event(event):
            events.append(event)
            switch event.kind {
            case .breathStarted:
                huffCue = false
            case .breathEnded:
                breaths += 1
                breathsInSet += 1
                if breathsInSet >= breathsPerSet { huffCue = true }
            case .setEnded:
                sets += 1
                breathsInSet = 0
                startedInSet = exhaling ? 1 : 0
                huffCue = true
            case .huffCough:
                break
            }
        case .frame:
            break
        }
    }

    private func draw(_ frame: SessionFrame) {
        let width = 30
        let scale = 40.0
        var bar = Array(repeating: Character(" "), count: width)
        let low = Int(target.lowerCmH2O / scale * Double(width))
        let high = min(width - 1, Int(target.upperCmH2O / scale * Double(width)))
        if low < width { bar[low] = "|" }
        bar[high] = "|"
        if let pressure = frame.pressure {
            let filled = max(0, min(width, Int((pressure / scale * Double(width)).rounded())))
            for i in 0..<filled where bar[i] == " " { bar[i] = "=" }
        }
        let zone: String
        switch frame.zone {
        case .below?: zone = paint("too soft ", 33)
        case .within?: zone = paint("in target", 32)
        case .above?: zone = paint("too hard ", 31)
        case nil: zone = frame.exhaling ? "listening" : "         "
        }
        let pressure = frame.pressure.map { fixed($0, 1).leftPad(5) + " cmH2O" } ?? "    - cmH2O"
        let pitch = frame.pitch.map { fixed($0, 1).leftPad(4) + " Hz" } ?? "   - Hz"
        var line = "\r\(pressure) [\(String(bar))] \(zone) \(pitch)  breath \(max(breathsInSet, startedInSet))/\(breathsPerSet)  set \(sets)  \(TextReport.clock(frame.time))"
        if huffCue { line += "  " + paint("huff cough now", 1) }
        FileHandle.standardOutput.write(Data((line + "\u{1B}[K").utf8))
    }

    private func paint(_ text: String, _ code: Int) -> String {
        color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func end() {
        FileHandle.standardOutput.write(Data("\n\n".utf8))
    }
}
