import ArgumentParser
import Foundation
import OPEPAudio
import OPEPHistory
import OPEPKit

struct MonitorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Coach a session live in the terminal: a one-line pressure gauge, then the summary.",
        discussion: """
            Listens to raw PCM on standard input, e.g. `arecord -f FLOAT_LE -r 44100 -c 1 -t raw | \
            opep monitor --sample-rate 44100 --encoding f32le`, or plays a recording at real-time \
            pace with `opep monitor FILE --realtime`. Stop with Ctrl-C or at the end of the input: \
            the session is summarised and saved to the history that `opep serve` and `opep history` use.
            """
    )

    @Argument(help: "A recording to play, or '-' (the default) for raw PCM on standard input.")
    var file: String = "-"

    @Flag(help: "Play a recording at real-time pace, as if it were live.")
    var realtime = false

    @Option(help: "Breaths per set in the plan (for the count and the huff cough cue).")
    var breathsPerSet: Int = 10

    @OptionGroup var history: HistoryDatabaseOptions

    @Flag(help: "Do not save the session to the history.")
    var noHistory = false

    @Flag(help: "Check the phone's placement: listen to one breath through the device, say whether its flutter is heard clearly or what to change, and stop (nothing is saved; exit status 0 only when heard clearly).")
    var placement = false

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
        var run: AnalysisRun
        do {
            run = try AnalysisRun(configuration: configuration)
        } catch {
            throw failure("\(file): \(error)")
        }
        var gauge = TerminalGauge(target: configuration.target, breathsPerSet: breathsPerSet, color: isatty(STDOUT_FILENO) == 1)
        let recorder = try noHistory || placement ? nil : beginRecording(configuration, analyzer: run.analyzer)
        let interrupt = Interruption()
        let chunk = max(1, Int(source.sampleRate / 10))
        var buffer: [Float] = []
        let start = Date()
        var played = 0
        var breathEnded = false
        while !interrupt.happened, !(placement && breathEnded) {
            let count: Int
            do {
                count = try source.read(into: &buffer, maxFrames: chunk)
            } catch {
                throw failure(error.description)
            }
            guard count > 0 else { break }
            run.process(buffer) { output in
                gauge.take(output)
                recorder?.record(output)
                if case let .event(event) = output, event.kind == .breathEnded { breathEnded = true }
            }
            try save { try recorder?.flushIfDue(report: run.report) }
            played += count
            if realtime {
                let due = Double(played) / source.sampleRate - Date().timeIntervalSince(start)
                if due > 0 { Thread.sleep(forTimeInterval: due) }
            }
        }
        let report = run.finish { output in
            gauge.take(output)
            recorder?.record(output)
        }
        gauge.end()
        if placement {
            print(TextReport.placement(report.breaths.first))
            if report.breaths.first?.signal.map({ $0.problem == nil }) != true { throw ExitCode.failure }
            return
        }
        try save { try recorder?.finish(report, status: .complete, warnings: source.warnings) }
        let analysisResult = SessionAnalysis(
            run: run, report: report, file: file, format: source.formatDescription, warnings: source.warnings)
        print(TextReport.render(analysisResult))
        if let recorder { print("\nSaved as session \(recorder.id) in \(recorder.store.location).") }
    }

    private func beginRecording(_ configuration: SessionAnalyzer.Configuration, analyzer: SessionAnalyzer) throws -> SessionRecorder {
        let location = try history.location()
        do {
            let store = try HistoryStore(location: location, connections: history.databaseConnections)
            var plan = try store.plan()
            plan.target = configuration.target
            plan.device = configuration.device
            plan.breathsPerSet = breathsPerSet
            return try store.beginSession(
                plan: plan, source: .monitor, configuration: configuration, frameInterval: analyzer.frameInterval,
                latency: analyzer.latency, input: file)
        } catch {
            throw failure("\(error); use --no-history to coach without saving")
        }
    }

    private func save(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            throw failure("history: cannot save the session (\(error))")
        }
    }
}

/// Ctrl-C ends the session gracefully: the loop stops and the session is summarised and saved.
/// (A program piping audio in, such as arecord, gets the signal too, which ends the input.)
final class Interruption: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    private let source: DispatchSourceSignal

    init() {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [unowned self] in
            lock.lock()
            flag = true
            lock.unlock()
        }
        source.resume()
    }

    var happened: Bool {
        lock.lock()
        defer { lock.unlock() }
        return flag
    }

    deinit {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}

/// The one-line live gauge: pressure with the target band, zone, pitch, breath and set counts,
/// and the signal check's advice while its warning stands.
struct TerminalGauge {
    let target: TargetRange
    let breathsPerSet: Int
    let color: Bool
    /// The number in its set of the newest breath the analysis started (0 before a set's first).
    private var breathInSet = 0
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
            if frame.time - lastDrawn >= 0.1 {
                lastDrawn = frame.time
                draw(frame)
            }
        case let .event(event):
            switch event.kind {
            case .breathStarted:
                huffCue = false
                breathInSet = event.breathInSet ?? breathInSet
            case .breathEnded:
                breathInSet = event.breathInSet ?? breathInSet
                if breathInSet >= breathsPerSet { huffCue = true }
            case .setEnded:
                sets += 1
                breathInSet = 0
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
        var line = "\r\(pressure) [\(String(bar))] \(zone) \(pitch)  breath \(breathInSet)/\(breathsPerSet)  set \(sets)  \(TextReport.clock(frame.time))"
        if huffCue { line += "  " + paint("huff cough now", 1) }
        if let warning = frame.warning { line += "  " + paint(warning.advice.description, 33) }
        FileHandle.standardOutput.write(Data((line + "\u{1B}[K").utf8))
    }

    private func paint(_ text: String, _ code: Int) -> String {
        color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func end() {
        FileHandle.standardOutput.write(Data("\n\n".utf8))
    }
}
