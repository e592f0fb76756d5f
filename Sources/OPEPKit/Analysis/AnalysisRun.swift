/// One analysis from its first sample to its report: a ``SessionAnalyzer`` and the events it
/// handed out, which the analysis document lists beside the report.
///
/// Every analysis runs through it: the commands that read a recording (``run(reading:onOutput:)``),
/// the live session and the page's engine (``process(_:onOutput:)`` as audio arrives, then
/// ``finish(onOutput:)``). They differ only in where the audio comes from and what they show of
/// the outputs on the way.
public struct AnalysisRun {
    /// The analysis.
    public private(set) var analyzer: SessionAnalyzer
    /// Every event handed out so far, in order.
    public private(set) var events: [SessionEvent] = []

    /// Sets the analysis up (see ``SessionAnalyzer/init(configuration:)``).
    public init(configuration: SessionAnalyzer.Configuration) throws(EngineConfigurationError) {
        analyzer = try SessionAnalyzer(configuration: configuration)
        events.reserveCapacity(256)
    }

    /// The analysis's settings.
    public var configuration: SessionAnalyzer.Configuration { analyzer.configuration }
    /// Spacing of the frames in seconds.
    public var frameInterval: Double { analyzer.frameInterval }
    /// How far the newest frame lies behind the newest audio, in seconds.
    public var latency: Double { analyzer.latency }
    /// What has been found so far.
    public var report: SessionReport { analyzer.report }

    /// Analyses a chunk of mono samples, handing out every frame and event that became final.
    public mutating func process(_ samples: UnsafeBufferPointer<Float>, onOutput: (SessionOutput) -> Void) {
        var events = self.events
        self.events = []
        analyzer.process(samples) { output in
            if case let .event(event) = output { events.append(event) }
            onOutput(output)
        }
        self.events = events
    }

    /// Analyses a chunk of mono samples, handing out every frame and event that became final.
    public mutating func process(_ samples: [Float], onOutput: (SessionOutput) -> Void) {
        samples.withUnsafeBufferPointer { process($0, onOutput: onOutput) }
    }

    /// Ends the analysis: hands out the frames and events still held back and returns the report.
    public mutating func finish(onOutput: (SessionOutput) -> Void) -> SessionReport {
        var events = self.events
        self.events = []
        let report = analyzer.finish { output in
            if case let .event(event) = output { events.append(event) }
            onOutput(output)
        }
        self.events = events
        return report
    }

    /// Analyses a whole recording: `read` writes the next chunk at the start of the buffer and
    /// returns its length, 0 at the end (or to stop early); every output goes to `onOutput` as it
    /// becomes final. Returns the report.
    public mutating func run<Failure: Error>(
        reading read: (inout [Float]) throws(Failure) -> Int, onOutput: (SessionOutput) -> Void = { _ in }
    ) throws(Failure) -> SessionReport {
        var buffer: [Float] = []
        while true {
            let count = try read(&buffer)
            guard count > 0 else { break }
            buffer.withUnsafeBufferPointer { all in
                process(UnsafeBufferPointer(rebasing: all.prefix(min(count, all.count))), onOutput: onOutput)
            }
        }
        return finish(onOutput: onOutput)
    }
}
