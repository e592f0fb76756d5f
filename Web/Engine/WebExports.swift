// The engine's C interface for the page, compiled with Sources/OPEPKit as one Embedded Swift module
// for wasm32 by scripts/build-web.sh. One analysis at a time, owned here: JavaScript writes samples
// into the input buffer, calls `opep_process`, and reads the frames that became final.
//
// A frame is `WebSession.frameValues` doubles: time (s), pitch (Hz, NaN for none), pressure
// (cmH2O, NaN), confidence, exhaling (0 or 1), zone (-1 none, 0 below, 1 in, 2 above), level (dB).
// A breath is `WebSession.breathValues` doubles: index, set, start (s), end (s), mean pressure,
// mean pitch, share in target, flutter share (NaN where there is none).

struct WebSession {
    static let frameValues = 7
    static let breathValues = 8

    var analyzer: SessionAnalyzer
    let input: UnsafeMutablePointer<Float>
    let inputCapacity: Int
    let frames: UnsafeMutablePointer<Double>
    let frameCapacity: Int
    var breaths: UnsafeMutablePointer<Double>?

    init(sampleRate: Double, inputCapacity: Int) throws(EngineConfigurationError) {
        analyzer = try SessionAnalyzer(configuration: SessionAnalyzer.Configuration(sampleRate: sampleRate))
        self.inputCapacity = inputCapacity
        input = .allocate(capacity: inputCapacity)
        input.initialize(repeating: 0, count: inputCapacity)
        let samplesPerFrame = analyzer.frameInterval * sampleRate
        frameCapacity = Int(Double(inputCapacity) / samplesPerFrame) + Int(analyzer.latency / analyzer.frameInterval) + 16
        frames = .allocate(capacity: frameCapacity * Self.frameValues)
        frames.initialize(repeating: 0, count: frameCapacity * Self.frameValues)
    }

    func release() {
        input.deallocate()
        frames.deallocate()
        breaths?.deallocate()
    }

    /// Writes `frame` as the `index`th frame of `frames`.
    static func write(_ frame: SessionFrame, into frames: UnsafeMutablePointer<Double>, at index: Int) {
        let slot = frames + index * frameValues
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
    }

    mutating func process(count: Int) -> Int {
        var written = 0
        let (frames, capacity) = (self.frames, frameCapacity)
        analyzer.process(UnsafeBufferPointer(start: input, count: min(count, inputCapacity))) { output in
            guard case let .frame(frame) = output, written < capacity else { return }
            Self.write(frame, into: frames, at: written)
            written += 1
        }
        return written
    }

    mutating func finish() -> (frames: Int, breaths: Int) {
        var written = 0
        let (frames, capacity) = (self.frames, frameCapacity)
        let report = analyzer.finish { output in
            guard case let .frame(frame) = output, written < capacity else { return }
            Self.write(frame, into: frames, at: written)
            written += 1
        }
        let list = UnsafeMutablePointer<Double>.allocate(capacity: max(1, report.breaths.count) * Self.breathValues)
        for (i, breath) in report.breaths.enumerated() {
            let slot = list + i * Self.breathValues
            slot[0] = Double(breath.index)
            slot[1] = Double(breath.set)
            slot[2] = breath.start
            slot[3] = breath.end
            slot[4] = breath.meanPressure ?? .nan
            slot[5] = breath.meanPitch ?? .nan
            slot[6] = breath.shareInTarget ?? .nan
            slot[7] = breath.flutterShare
        }
        breaths?.deallocate()
        breaths = list
        return (written, report.breaths.count)
    }
}

nonisolated(unsafe) private var session: WebSession?
nonisolated(unsafe) private var breathCount = 0

/// Starts an analysis at `sampleRate` Hz taking chunks of up to `inputCapacity` samples; returns 0,
/// or -1 when the sample rate or capacity is out of range.
@_cdecl("opep_start")
public func opepStart(sampleRate: Double, inputCapacity: Int32) -> Int32 {
    session?.release()
    session = nil
    guard inputCapacity > 0 else { return -1 }
    do {
        session = try WebSession(sampleRate: sampleRate, inputCapacity: Int(inputCapacity))
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

/// The frames the last `opep_process` or `opep_finish` wrote.
@_cdecl("opep_frames")
public func opepFrames() -> UnsafeMutablePointer<Double>? { session?.frames }

/// Ends the session: writes the frames still held back and the breaths; returns the frame count.
@_cdecl("opep_finish")
public func opepFinish() -> Int32 {
    guard session != nil else { return -1 }
    let (frames, breaths) = session!.finish()
    breathCount = breaths
    return Int32(frames)
}

/// The breaths `opep_finish` found, and how many.
@_cdecl("opep_breaths")
public func opepBreaths() -> UnsafeMutablePointer<Double>? { session?.breaths }

@_cdecl("opep_breath_count")
public func opepBreathCount() -> Int32 { Int32(breathCount) }

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
