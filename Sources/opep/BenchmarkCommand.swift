import ArgumentParser
import Foundation
import OPEPKit
import OPEPSimulation

struct BenchmarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "benchmark",
        abstract: "Measure the engine's speed in x real time on one core (build with -c release).",
        discussion: """
            Renders a simulated session into memory once, then times the whole analysis (pitch \
            tracker, exhalation detector, session statistics) over it several times and reports \
            the median, the fastest and the slowest run. The time to make the audio is not counted.
            """
    )

    @Option(help: "Seconds of simulated audio.")
    var seconds: Double = 120

    @Option(help: "Sample rate of the audio, in Hz.")
    var sampleRate: Double = 44100

    @Option(help: "Timed runs; the median is reported.")
    var runs: Int = 7

    @Option(help: "Samples handed to the engine per call.")
    var chunk: Int = 4410

    func validate() throws {
        guard seconds >= 1, seconds <= 3600 else { throw ValidationError("--seconds must be between 1 and 3600.") }
        guard runs >= 1, runs <= 100 else { throw ValidationError("--runs must be between 1 and 100.") }
        guard chunk >= 1 else { throw ValidationError("--chunk must be at least 1 sample.") }
    }

    func run() throws {
        let audio = try render()
        let duration = Double(audio.count) / sampleRate
        let configuration = SessionAnalyzer.Configuration(sampleRate: sampleRate)
        let trackerTimings = try timed(audio) { samples in
            var tracker = try FlutterPitchTracker(configuration: configuration.tracker)
            forEachChunk(of: samples) { chunk in tracker.process(chunk) { _ in } }
        }
        var breaths = 0
        let timings = try timed(audio) { samples in
            var run = try AnalysisRun(configuration: configuration)
            forEachChunk(of: samples) { chunk in run.process(chunk) { _ in } }
            breaths = run.finish { _ in }.summary.breathCount
        }
        print("\(fixed(duration, 1)) s of \(fixed(sampleRate / 1000, 1)) kHz simulated audio (\(plural(breaths, "breath"))), \(runs) runs, chunks of \(chunk) samples, one core")
        print("processor: \(Self.processorName() ?? "unknown") (the figures depend on it)")
        print(EngineBuild.forThisProcessor
            ? "engine compiled for this processor (OPEP_PORTABLE=1 swift build makes one that any machine of its kind runs)"
            : "engine compiled for any processor of its kind")
        print(Self.line("pitch tracker", trackerTimings, duration))
        print(Self.line("whole analysis", timings, duration))
    }

    /// Seconds each of `runs` runs of `body` over the audio took, setup included.
    private func timed(_ audio: [Float], _ body: (UnsafeBufferPointer<Float>) throws -> Void) throws -> [Double] {
        try (0..<runs).map { _ in
            let start = DispatchTime.now().uptimeNanoseconds
            try audio.withUnsafeBufferPointer(body)
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
    }

    private func forEachChunk(of samples: UnsafeBufferPointer<Float>, _ body: (UnsafeBufferPointer<Float>) -> Void) {
        var offset = 0
        while offset < samples.count {
            let end = min(samples.count, offset + chunk)
            body(UnsafeBufferPointer(rebasing: samples[offset..<end]))
            offset = end
        }
    }

    private static func line(_ name: String, _ timings: [Double], _ duration: Double) -> String {
        let sorted = timings.sorted()
        let median = sorted[sorted.count / 2]
        return "\(name.rightPad(15)) median \(fixed(median * 1000, 2)) ms = \(Int(duration / median)) x real time (fastest \(Int(duration / sorted[0])) x, slowest \(Int(duration / sorted[sorted.count - 1])) x)"
    }

    /// The processor's model name as the system gives it (`/proc/cpuinfo` on Linux,
    /// `machdep.cpu.brand_string` on macOS), or nil where it does not.
    static func processorName() -> String? {
        #if os(Linux)
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        for line in info.split(separator: "\n") where line.hasPrefix("model name") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if !name.isEmpty { return name }
        }
        return nil
        #elseif canImport(Darwin)
        var size = 0
        guard sysctlbyname("machdep.cpu.brand_string", nil, &size, nil, 0) == 0, size > 1 else { return nil }
        var name = [CChar](repeating: 0, count: size)
        guard sysctlbyname("machdep.cpu.brand_string", &name, &size, nil, 0) == 0 else { return nil }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
        return nil
        #endif
    }

    private func render() throws -> [Float] {
        var configuration = SimulationConfiguration(sampleRate: sampleRate, sets: 1, breathsPerSet: 100, noiseKind: .mixed)
        configuration.restBetweenSets = 0
        var simulator = try SessionSimulator(configuration: configuration)
        let total = min(simulator.totalFrames, Int(seconds * sampleRate))
        var audio: [Float] = []
        audio.reserveCapacity(total)
        var buffer: [Float] = []
        while audio.count < total, simulator.render(into: &buffer, maxFrames: min(65536, total - audio.count)) > 0 {
            audio += buffer
        }
        return audio
    }
}
