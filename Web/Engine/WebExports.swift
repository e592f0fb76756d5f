// The engine's C interface for the page, compiled with Sources/OPEPKit as one Embedded Swift module
// for wasm32 by scripts/build-web.sh. One analysis at a time, owned here: JavaScript writes samples
// into the input buffer, calls `opep_process`, and reads the frames that became final.
//
// A frame is `WebSession.frameValues` doubles: time (s), pitch (Hz, NaN for none), pressure
// (cmH2O, NaN), confidence, exhaling (0 or 1), zone (-1 none, 0 below, 1 in, 2 above), level (dB),
// the signal check's reason and its warning (-1 none, else the index in `SignalProblem.allCases`).
// Events are `WebSession.eventValues` doubles (see `WebSession.append`); at the end the whole
// analysis document is JSON text, as `opep analyze --format json` writes it.

struct WebSession {
    static let frameValues = 9
    static let eventValues = 14

    var run: AnalysisRun
    let configuration: SessionAnalyzer.Configuration
    let source: AnalysisSource
    let input: UnsafeMutablePointer<Float>
    let inputCapacity: Int
    let frames: UnsafeMutablePointer<Double>
    let frameCapacity: Int
    /// The newest live frame of the last call, time NaN when there was none.
    let live: UnsafeMutablePointer<Double>
    /// The events of the last call, `eventValues` doubles each (at most `eventCapacity`).
    let newEvents: UnsafeMutablePointer<Double>
    static let eventCapacity = 256
    var newEventCount = 0
    var outputs: [SessionOutput] = []
    /// The analysis document once finished: UTF-8 JSON.
    var document: UnsafeMutableBufferPointer<UInt8>?

    init(configuration: SessionAnalyzer.Configuration, source: AnalysisSource, inputCapacity: Int) throws(EngineConfigurationError) {
        run = try AnalysisRun(configuration: configuration)
        self.configuration = configuration
        self.source = source
        self.inputCapacity = inputCapacity
        input = .allocate(capacity: inputCapacity)
        input.initialize(repeating: 0, count: inputCapacity)
        let samplesPerFrame = run.frameInterval * configuration.sampleRate
        frameCapacity = Int(Double(inputCapacity) / samplesPerFrame) + Int(run.latency / run.frameInterval) + 16
        frames = .allocate(capacity: frameCapacity * Self.frameValues)
        frames.initialize(repeating: 0, count: frameCapacity * Self.frameValues)
        live = .allocate(capacity: Self.frameValues)
        live.initialize(repeating: .nan, count: Self.frameValues)
        newEvents = .allocate(capacity: Self.eventCapacity * Self.eventValues)
        newEvents.initialize(repeating: .nan, count: Self.eventCapacity * Self.eventValues)
        outputs.reserveCapacity(256)
    }

    func release() {
        input.deallocate()
        frames.deallocate()
        live.deallocate()
        newEvents.deallocate()
        document?.deallocate()
    }

    /// Writes `frame` at `slot` as `frameValues` doubles.
    static func write(_ frame: SessionFrame, to slot: UnsafeMutablePointer<Double>) {
        slot[0] = frame.time
        slot[1] = frame.pitch ?? .nan
        slot[2] = frame.pressure ?? .nan
        slot[3] = frame.confidence
        slot[4] = frame.exhaling ? 1 : 0
        switch frame.zone {
        case nil: slot[5] = -1
        case .below: slot[5] = 0
        case .within: slot[5] = 1
        case .above: slot[5] = 2
        }
        slot[6] = frame.levelDB
        slot[7] = index(of: frame.signal)
        slot[8] = index(of: frame.warning)
    }

    /// `problem`'s index in `SignalProblem.allCases`, -1 for none.
    private static func index(of problem: SignalProblem?) -> Double {
        guard let problem, let index = SignalProblem.allCases.firstIndex(of: problem) else { return -1 }
        return Double(index)
    }

    /// Adds `event` to the new events: kind (0 breath started, 1 breath ended, 2 huff cough,
    /// 3 set ended), time, duration, breath, set, for an ended breath or set its mean pressure
    /// and share in target, for a breath its number in its set, and for an ended breath its
    /// flutter share, ratio over the floor (dB), modulation depth, clipped share, problem
    /// (1 + its index in `SignalProblem.allCases`, 0 when heard clearly) and upper frequency (Hz)
    /// (NaN where there is none).
    mutating func append(_ event: SessionEvent) {
        let kind: Double
        var mean: Double?
        var share: Double?
        var ended: Breath?
        switch event.kind {
        case .breathStarted: kind = 0
        case .breathEnded:
            kind = 1
            if let breath = run.report.breaths.last(where: { $0.index == event.breath }) {
                (mean, share) = (breath.meanPressure, breath.shareInTarget)
                ended = breath
            }
        case .huffCough: kind = 2
        case .setEnded:
            kind = 3
            if let set = run.report.sets.last(where: { $0.index == event.set }) {
                (mean, share) = (set.meanPressure, set.shareInTarget)
            }
        }
        guard newEventCount < Self.eventCapacity else { return }
        let slot = newEvents + newEventCount * Self.eventValues
        slot[0] = kind
        slot[1] = event.time
        slot[2] = event.duration ?? .nan
        slot[3] = event.breath.map(Double.init) ?? .nan
        slot[4] = event.set.map(Double.init) ?? .nan
        slot[5] = mean ?? .nan
        slot[6] = share ?? .nan
        slot[7] = event.breathInSet.map(Double.init) ?? .nan
        slot[8] = ended?.flutterShare ?? .nan
        slot[9] = ended?.signal?.snrDB ?? .nan
        slot[10] = ended?.signal?.modulation ?? .nan
        slot[11] = ended?.signal?.clippedShare ?? .nan
        slot[12] = ended?.signal.map { figures in
            figures.problem.map { problem in Double(1 + SignalProblem.allCases.firstIndex(of: problem)!) } ?? 0
        } ?? .nan
        slot[13] = ended?.signal?.upperFrequencyHz ?? .nan
        newEventCount += 1
    }

    /// Hands out one output of the analyzer; returns the frames written so far.
    private mutating func take(_ output: SessionOutput, written: Int) -> Int {
        switch output {
        case let .frame(frame):
            guard written < frameCapacity else { return written }
            Self.write(frame, to: frames + written * Self.frameValues)
            return written + 1
        case let .live(frame):
            Self.write(frame, to: live)
        case let .event(event):
            append(event)
        }
        return written
    }

    /// Hands out the outputs collected, in order; returns the frames written.
    private mutating func handOut(_ collected: [SessionOutput]) -> Int {
        live[0] = .nan
        newEventCount = 0
        var written = 0
        for output in collected { written = take(output, written: written) }
        return written
    }

    mutating func process(count: Int) -> Int {
        var collected = outputs
        collected.removeAll(keepingCapacity: true)
        run.process(UnsafeBufferPointer(start: input, count: min(count, inputCapacity))) { collected.append($0) }
        outputs = collected
        return handOut(collected)
    }

    mutating func finish(pretty: Bool) -> Int {
        var collected: [SessionOutput] = []
        let report = run.finish { collected.append($0) }
        let written = handOut(collected)
        writeDocument(report, pretty: pretty)
        return written
    }

    /// Writes the analysis document of `report` and the events so far.
    mutating func writeDocument(_ report: SessionReport, pretty: Bool) {
        let text = AnalysisJSON.document(
            source: source, configuration: configuration, frameInterval: run.frameInterval, latency: run.latency,
            report: report, events: run.events
        ).text(pretty: pretty)
        document?.deallocate()
        let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: text.count)
        _ = bytes.initialize(from: text)
        document = bytes
    }
}

nonisolated(unsafe) private var session: WebSession?
nonisolated(unsafe) private var source = AnalysisSource()
private let textCapacity = 1024
nonisolated(unsafe) private let textBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: textCapacity)

/// Where JavaScript writes a text (UTF-8, up to 1024 bytes) before ``opepSetText(kind:length:)``.
@_cdecl("opep_text")
public func opepText() -> UnsafeMutablePointer<UInt8>? { textBuffer }

/// Sets a text of the next session's document from the text buffer: 0 the device's name, 1 the
/// file, 2 the format, 3 when it was recorded (ISO 8601; empty for none). Returns 0, or -1.
@_cdecl("opep_set_text")
public func opepSetText(kind: Int32, length: Int32) -> Int32 {
    guard length >= 0, Int(length) <= textCapacity else { return -1 }
    let text = String(decoding: UnsafeBufferPointer(start: textBuffer, count: Int(length)), as: UTF8.self)
    switch kind {
    case 0: deviceName = text
    case 1: source.file = text
    case 2: source.format = text
    case 3: source.recordedAt = text.isEmpty ? nil : text
    default: return -1
    }
    return 0
}

nonisolated(unsafe) private var deviceName = DeviceProfile.acapella.name

/// Starts an analysis at `sampleRate` Hz taking chunks of up to `inputCapacity` samples, for the
/// target `low`-`high` cmH2O and a device line `intercept + slope × pitch` over `lowerHz`-`upperHz`
/// (NaN: the Acapella's line and the standard target). Returns 0, or -1 when a value is out of
/// range.
@_cdecl("opep_start")
public func opepStart(
    sampleRate: Double, inputCapacity: Int32, low: Double, high: Double,
    intercept: Double, slope: Double, lowerHz: Double, upperHz: Double
) -> Int32 {
    session?.release()
    session = nil
    guard inputCapacity > 0 else { return -1 }
    var device = DeviceProfile.acapella
    device.name = deviceName
    if !intercept.isNaN { device.interceptCmH2O = intercept }
    if !slope.isNaN { device.slopeCmH2OPerHz = slope }
    if !lowerHz.isNaN { device.lowerFrequency = lowerHz }
    if !upperHz.isNaN { device.upperFrequency = upperHz }
    var target = TargetRange.standard
    if !low.isNaN { target.lowerCmH2O = low }
    if !high.isNaN { target.upperCmH2O = high }
    do {
        let configuration = SessionAnalyzer.Configuration(sampleRate: sampleRate, device: device, target: target)
        session = try WebSession(configuration: configuration, source: source, inputCapacity: Int(inputCapacity))
        return 0
    } catch {
        return -1
    }
}

/// Where JavaScript writes the next chunk's samples (mono, -1...1).
@_cdecl("opep_input")
public func opepInput() -> UnsafeMutablePointer<Float>? { session?.input }

/// Analyses the first `count` samples of the input buffer; returns how many frames became final.
@_cdecl("opep_process")
public func opepProcess(count: Int32) -> Int32 {
    guard session != nil else { return -1 }
    return Int32(session!.process(count: Int(count)))
}

/// The sentence for the patient for the signal check's reason `index` (its place in
/// `SignalProblem.allCases`), NUL-terminated UTF-8; nil for an index out of range.
@_cdecl("opep_advice")
public func opepAdvice(_ index: Int32) -> UnsafePointer<UInt8>? {
    guard index >= 0, Int(index) < SignalProblem.allCases.count else { return nil }
    return SignalProblem.allCases[Int(index)].advice.utf8Start
}

/// The frames the last `opep_process` or `opep_finish` wrote.
@_cdecl("opep_frames")
public func opepFrames() -> UnsafeMutablePointer<Double>? { session?.frames }

/// The newest live frame of the last `opep_process` (its time is NaN when there was none).
@_cdecl("opep_live")
public func opepLive() -> UnsafeMutablePointer<Double>? { session?.live }

/// The events of the last `opep_process` or `opep_finish`, and how many.
@_cdecl("opep_events")
public func opepEvents() -> UnsafeMutablePointer<Double>? { session?.newEvents }

@_cdecl("opep_event_count")
public func opepEventCount() -> Int32 { Int32(session?.newEventCount ?? 0) }

/// Ends the session: writes the frames still held back and the analysis document (pretty-printed
/// when `pretty` is 1); returns the frame count.
@_cdecl("opep_finish")
public func opepFinish(pretty: Int32) -> Int32 {
    guard session != nil else { return -1 }
    return Int32(session!.finish(pretty: pretty == 1))
}

/// Writes the analysis document of the session so far (what a session interrupted now would
/// keep), without ending it; returns its length in bytes, or -1 without a session.
@_cdecl("opep_snapshot")
public func opepSnapshot(pretty: Int32) -> Int32 {
    guard session != nil else { return -1 }
    let report = session!.run.report
    session!.writeDocument(report, pretty: pretty == 1)
    return opepDocumentLength()
}

/// The analysis document `opep_finish` or `opep_snapshot` wrote (UTF-8 JSON), and its length in bytes.
@_cdecl("opep_document")
public func opepDocument() -> UnsafeMutablePointer<UInt8>? { session?.document?.baseAddress }

@_cdecl("opep_document_length")
public func opepDocumentLength() -> Int32 { Int32(session?.document?.count ?? 0) }

/// The Embedded runtime writes its fatal-error messages with `putchar`. The page gives the engine
/// no console, so they are dropped (a trap still stops it) and no WASI import is needed.
@_cdecl("putchar")
public func putchar(_ character: Int32) -> Int32 { character }

/// Swift seeds its hashing with `arc4random_buf`. The engine's results never depend on hash order
/// and the page gives it no entropy, so the seed is zero.
@_cdecl("arc4random_buf")
public func arc4randomBuffer(_ buffer: UnsafeMutableRawPointer, _ count: Int) {
    buffer.initializeMemory(as: UInt8.self, repeating: 0, count: count)
}
