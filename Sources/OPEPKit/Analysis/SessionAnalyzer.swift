
/// A whole OPEP session measured from its sound, streaming: audio in, frames and events out, and
/// a report of breaths, sets and summary at the end.
///
/// The chain is ``FlutterPitchTracker`` → ``ExhalationDetector`` → the device's pressure line →
/// breath, set and session statistics. Frames come out ``latency`` seconds after their audio
/// went in: a frame is final only once every decision that could still change it has been made,
/// so the stream never has to take anything back. The frames of a doubtful first exhalation, and
/// those after it, wait longer: until another exhalation confirms it or it is withdrawn (at most
/// ``ExhalationDetector/longestHold`` frames, about 22 s; see
/// ``ExhalationDetector/Configuration/doubtfulFirstWait``). Feed chunks of any size; the outputs do not
/// depend on the split. All frame storage is allocated up front; breaths and sets are kept, one
/// record each.
public struct SessionAnalyzer {
    /// Everything the analysis needs, in real units.
    public struct Configuration: Sendable, Hashable {
        /// The device whose flutter band and pressure line are used (default the Acapella).
        public var device: DeviceProfile
        /// The prescribed pressure band (default 10-20 cmH2O).
        public var target: TargetRange
        /// The pitch tracker's settings; its sample rate and band must match the device's.
        public var tracker: FlutterPitchTracker.Configuration
        /// The exhalation detector's settings.
        public var detector: ExhalationDetector.Configuration = .init()
        /// The signal check's settings.
        public var signal: SignalCheck.Configuration = .init()
        /// A pause without breaths this long ends a set, in seconds (default 15). Breaths within a
        /// set follow each other after 3-5.5 s of inhalation and hold, so one breath the engine
        /// does not hear leaves a pause of 7.5-15.5 s, which must not end the set; between sets
        /// come the huff coughs (see ``huffSetPause``) and a rest.
        public var setPause: Double = Self.defaultSetPause
        /// The default ``setPause``, in seconds.
        public static let defaultSetPause: Double = 15
        /// A pause this long ends a set when huff coughs were heard in it, in seconds (default 6.5;
        /// breaths within a set follow each other after 3-5.5 s of inhalation and hold).
        public var huffSetPause: Double = Self.defaultHuffSetPause
        /// The default ``huffSetPause``, in seconds.
        public static let defaultHuffSetPause: Double = 6.5
        /// A sound the detector took for a huff cough that ends less than this before an exhalation
        /// starts was the breath in before it, in seconds (default 3.5): one breathes in, and holds
        /// it for 2-3 s, before breathing out through the device, and a loud breath in is as short
        /// and as free of flutter as a huff. A huff cough is reported this much later (and the
        /// detector's longest wait for a flutter), or counted as an inhalation.
        public var inhalationLead: Double = Self.defaultInhalationLead
        /// The default ``inhalationLead``, in seconds.
        public static let defaultInhalationLead: Double = 3.5
        /// How far either side of a stored frame the tracker's pitch is averaged, in seconds
        /// (default 0.1; 0 stores the tracker's pitch as it is; at most 0.5). See
        /// ``CentredPitchAverage``: the gauge shows the tracker's pitch at once, a stored frame
        /// waits for the exhalation detector's decision anyway.
        public var pitchAverageTime: Double = 0.1
        /// How long after a sound starts the live frames may show a track the tracker has not yet
        /// reported (``FlutterPitchTracker/Frame/provisionalPitch``), where its level could
        /// confirm an exhalation, in seconds (default 0.6; 0 turns it off; at most 2). A device's
        /// flutter starts with its exhalation's sound, and the patient watches the gauge then;
        /// later in a sound a chance track in speech, music or plain breathing would only make
        /// the gauge flicker. Only the live frames change: the stored frames, the breaths and
        /// the record wait for the reported pitch. Not stored in the analysis document.
        public var earlyGaugeTime: Double = 0.6

        /// A configuration for a sample rate, a device and a target; everything else default.
        public init(sampleRate: Double, device: DeviceProfile = .acapella, target: TargetRange = .standard) {
            self.device = device
            self.target = target
            tracker = .init(sampleRate: sampleRate, device: device)
        }

        /// The input sample rate in Hz.
        public var sampleRate: Double { tracker.sampleRate }

        /// The default ``huffSetPause`` for a set pause: 6.5 s, or the set pause when it is shorter
        /// (what a configuration stored without a huff set pause was analysed with).
        public static func defaultHuffSetPause(setPause: Double) -> Double {
            min(defaultHuffSetPause, setPause)
        }

        /// Throws if any value is out of its range, naming the parameter, the value and the limit.
        public func validate() throws(EngineConfigurationError) {
            do {
                try device.validate()
            } catch {
                throw EngineConfigurationError(parameter: "device", value: device.lowerFrequency, limit: "a usable profile (\(error))")
            }
            try require(tracker.lowerFrequency == device.lowerFrequency, "tracker.lowerFrequency", tracker.lowerFrequency, "the device's \(device.lowerFrequency) Hz")
            try require(tracker.upperFrequency == device.upperFrequency, "tracker.upperFrequency", tracker.upperFrequency, "the device's \(device.upperFrequency) Hz")
            try require(target.lowerCmH2O < target.upperCmH2O, "target.lowerCmH2O", target.lowerCmH2O, "below target.upperCmH2O (\(target.upperCmH2O))")
            try require(setPause >= 2 && setPause <= 600, "setPause", setPause, "between 2 and 600 s")
            try require(huffSetPause >= 0 && huffSetPause <= setPause, "huffSetPause", huffSetPause, "between 0 and setPause (\(setPause) s)")
            try require(pitchAverageTime >= 0 && pitchAverageTime <= 0.5, "pitchAverageTime", pitchAverageTime, "between 0 and 0.5 s")
            try require(earlyGaugeTime >= 0 && earlyGaugeTime <= 2, "earlyGaugeTime", earlyGaugeTime, "between 0 and 2 s")
            try require(inhalationLead >= 0 && inhalationLead <= 5, "inhalationLead", inhalationLead, "between 0 and 5 s")
            try tracker.validate()
            try detector.validate()
            try signal.validate()
        }
    }

    public let configuration: Configuration
    /// Spacing of the frames in seconds.
    public let frameInterval: Double
    /// How far the newest final frame lies behind the newest audio, in seconds, but while a
    /// doubtful first exhalation waits for another.
    public let latency: Double

    private var tracker: FlutterPitchTracker?
    private var detector: ExhalationDetector
    private var clips: ClipMeter
    private var bands: BandMeter
    private var roundings: RoundingMeter
    /// The last rounding level worked out (``roundingDB()``) and the step it was worked out from.
    private var roundingLevel: (step: Float, levelDB: Double)?
    /// The share of a white noise's power at the input that reaches a frame's level.
    private let whiteNoiseGain: Double
    private var overshoots: OnsetOvershootMeter
    private var roomRises: RoomRiseMeter
    private var signalCheck: SignalCheck
    private let pitchAverage: CentredPitchAverage
    /// Half the audio a frame describes, in seconds.
    private let halfSpan: Double
    /// The most samples the clip meter reads ahead of the tracker (0.5 s, well inside its memory).
    private let sliceLength: Int
    /// The frames not yet final and those a final one's pitch average reads, in a ring a power
    /// of two long (a frame's slot is its index masked, without a division).
    private var pending: [SessionFrame]
    private let pendingMask: Int
    private var frameCount = 0
    private var finalCount = 0
    private var sampleCount = 0
    /// Huff coughs waiting to be handed out at a frame, with their whole sound's frames and the
    /// first frame of an exhalation that started within `inhalationLead` of that sound's end (then
    /// they were the breath in before it, unless it is withdrawn).
    private var pendingHuffs: [(frame: Int, event: SessionEvent, sound: ClosedRange<Int>, followedBy: Int?)] = []
    private let inhalationLeadFrames: Int
    /// How long after its sound ends a huff cough waits for an exhalation that would make it a
    /// breath in.
    private let huffWaitFrames: Int
    private var inhalationTime = 0.0
    private var inhalationCount = 0

    private var breaths: [Breath] = []
    private var sets: [TherapySet] = []
    private var breath: (start: Double, lastTime: Double, statistics: FlutterStatistics)?
    private var setStatistics = FlutterStatistics()
    private var setBreaths: [Breath] = []
    private var session = FlutterStatistics()
    private var huffCoughs = 0
    private var huffsAfterLastBreath = 0
    private var lastFinalTime = 0.0

    /// Sets the analysis up, allocating its frame storage.
    public init(configuration: Configuration) throws(EngineConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        let tracker = try FlutterPitchTracker(configuration: configuration.tracker)
        self.tracker = tracker
        frameInterval = tracker.frameInterval
        detector = try ExhalationDetector(configuration: configuration.detector, frameInterval: tracker.frameInterval)
        clips = ClipMeter(sampleRate: configuration.sampleRate)
        bands = BandMeter(sampleRate: configuration.sampleRate)
        roundings = RoundingMeter(sampleRate: configuration.sampleRate)
        whiteNoiseGain = tracker.whiteNoiseGain
        overshoots = OnsetOvershootMeter(frameInterval: tracker.frameInterval)
        roomRises = RoomRiseMeter(frameInterval: tracker.frameInterval)
        signalCheck = try SignalCheck(configuration: configuration.signal, frameInterval: tracker.frameInterval)
        halfSpan = configuration.tracker.analysisDuration / 2
        inhalationLeadFrames = Int((configuration.inhalationLead / tracker.frameInterval).rounded())
        huffWaitFrames = inhalationLeadFrames + detector.maximumConfirmFrames + 1
        sliceLength = max(1, Int(configuration.sampleRate * ClipMeter.memoryTime / 4))
        pitchAverage = CentredPitchAverage(
            halfWidth: configuration.pitchAverageTime, frameInterval: tracker.frameInterval,
            consistency: configuration.tracker.consistency)
        let placeholder = SessionFrame(time: 0, pitch: nil, pressure: nil, confidence: 0, exhaling: false, zone: nil, levelDB: 0)
        let ring = ringLength(atLeast: max(detector.soundReach, detector.longestHold) + 2 + pitchAverage.halfWidth)
        pending = [SessionFrame](repeating: placeholder, count: ring)
        pendingMask = ring - 1
        latency = tracker.latency + Double(detector.decisionDelay) * tracker.frameInterval
        pendingHuffs.reserveCapacity(8)
    }

    /// Clears all state, as if newly set up.
    public mutating func reset() {
        tracker?.reset()
        detector.reset()
        clips.reset()
        bands.reset()
        roundings.reset()
        overshoots.reset()
        roomRises.reset()
        signalCheck.reset()
        frameCount = 0
        finalCount = 0
        sampleCount = 0
        pendingHuffs.removeAll(keepingCapacity: true)
        inhalationTime = 0
        inhalationCount = 0
        breaths.removeAll()
        sets.removeAll()
        breath = nil
        setStatistics = FlutterStatistics()
        setBreaths.removeAll()
        session = FlutterStatistics()
        huffCoughs = 0
        huffsAfterLastBreath = 0
        lastFinalTime = 0
    }

    /// Analyses a chunk of mono samples, handing out every frame and event that became final.
    public mutating func process(_ samples: UnsafeBufferPointer<Float>, onOutput: (SessionOutput) -> Void) {
        sampleCount += samples.count
        guard var running = tracker.take() else { return }
        var start = 0
        while start < samples.count {
            let slice = UnsafeBufferPointer(rebasing: samples[start..<min(samples.count, start + sliceLength)])
            clips.process(slice)
            bands.process(slice)
            roundings.process(slice)
            running.process(slice, analysingWhen: { shouldAnalyse(energy: $0) }) { frame in
                accept(frame, onOutput: onOutput)
            }
            start += slice.count
        }
        tracker = running
    }

    /// Between sounds, a frame is searched for flutter only when it is loud enough that a sound
    /// could start (within 3 dB of the detector's start threshold); during a sound, always.
    private func shouldAnalyse(energy: Double) -> Bool {
        guard !detector.isListening, let floor = detector.noiseFloorDB else { return true }
        let level = 10 * logarithm10(max(energy, 1e-14))
        return level >= floor + configuration.detector.onMarginDB - 3
    }

    /// Analyses a chunk of mono samples, handing out every frame and event that became final.
    public mutating func process(_ samples: [Float], onOutput: (SessionOutput) -> Void) {
        samples.withUnsafeBufferPointer { process($0, onOutput: onOutput) }
    }

    /// Ends the session: hands out the frames and events still held back and returns the report.
    public mutating func finish(onOutput: (SessionOutput) -> Void) -> SessionReport {
        while let decision = detector.finish() { apply(decision, newest: frameCount - 1) }
        while finalCount < frameCount { finalize(onOutput: onOutput) }
        closeBreath(onOutput: onOutput)
        emitHuffCoughs(upTo: Int.max, onOutput: onOutput)
        closeSet(at: lastFinalTime, onOutput: onOutput)
        return report
    }

    /// What has been found so far.
    public var report: SessionReport {
        let exhalationTime = breaths.reduce(0) { $0 + $1.duration }
        let meanBreath = breaths.isEmpty ? nil : exhalationTime / Double(breaths.count)
        var ratio: Double?
        if inhalationCount >= 3, let meanBreath {
            ratio = meanBreath / (inhalationTime / Double(inhalationCount))
        }
        let summary = SessionSummary(
            duration: Double(sampleCount) / configuration.sampleRate, breathCount: breaths.count,
            setCount: sets.count, huffCoughCount: huffCoughs, exhalationTime: exhalationTime,
            meanBreathDuration: meanBreath, meanPressure: session.meanPressure, meanPitch: session.meanPitch,
            zoneShares: session.zoneShares, exhalationInhalationRatio: ratio, inhalationsHeard: inhalationCount,
            flutterShare: breaths.isEmpty ? nil : session.flutterShare,
            unmeasured: breaths.isEmpty ? nil : session.unmeasuredFrames.scaled(by: frameInterval))
        return SessionReport(summary: summary, breaths: breaths, sets: sets)
    }

    private mutating func accept(_ frame: FlutterPitchTracker.Frame, onOutput: (SessionOutput) -> Void) {
        let index = frameCount, slot = index & pendingMask
        frameCount += 1
        let level = max(SessionFrame.lowestLevelDB, 10 * logarithm10(max(frame.energy, 1e-14)))
        pending[slot] = SessionFrame(
            time: frame.time, pitch: frame.pitch, pressure: nil, confidence: frame.confidence,
            exhaling: detector.isExhaling, zone: nil, levelDB: level, modulation: frame.modulation)
        let roomsOwn = RoomPeriodicity.explains(
            pitch: frame.pitch, modulation: frame.modulation, room: frame.room, consistency: configuration.tracker.consistency)
        if let decision = detector.process(
            levelDB: level, pitched: frame.pitch != nil && !roomsOwn, heard: frame.confidence > 0 && !roomsOwn,
            counted: detector.countsAsHeard(pitch: frame.pitch, confidence: frame.confidence) && !roomsOwn) {
            apply(decision, newest: index)
        }
        let clippedShare = clips.clippedShare(from: frame.time - halfSpan, to: frame.time + halfSpan)
        let band = detector.isListening ? bands.upperFrequency(from: frame.time - halfSpan, to: frame.time + halfSpan) : nil
        pending[slot].clippedShare = clippedShare
        pending[slot].upperFrequencyHz = band
        overshoots.process(levelDB: level, sounding: detector.isListening, exhaling: detector.isExhaling)
        let verdict = signalCheck.process(SignalCheck.Observation(
            levelDB: level, roomDB: detector.backgroundDB, sounding: detector.isListening, pitched: frame.pitch != nil && !roomsOwn,
            modulation: frame.modulation, clippedShare: clippedShare, upperFrequencyHz: band,
            onsetOvershootDB: overshoots.overshootDB, roundingDB: detector.isListening ? roundingDB() : nil,
            roomRiseDB: roomRises.riseDB, periodEvidence: frame.periodEvidence))
        pending[slot].signal = verdict.reason?.problem
        pending[slot].warning = verdict.warning?.problem
        var live = pending[slot]
        if live.pitch == nil, !roomsOwn, let provisional = frame.provisionalPitch, gaugeShowsEarly(levelDB: level) {
            live.pitch = provisional
        }
        onOutput(.live(withPressure(live, exhaling: detector.isExhaling)))
        while frameCount - finalCount > detector.decisionDelay, !detector.holds(frame: finalCount) { finalize(onOutput: onOutput) }
    }

    /// Whether the live frame may show a track not yet reported: within `earlyGaugeTime` of a
    /// sound's start, at a level that could confirm an exhalation.
    private func gaugeShowsEarly(levelDB: Double) -> Bool {
        guard let time = detector.timeIntoSound, time <= configuration.earlyGaugeTime else { return false }
        return detector.confirms(levelDB: levelDB)
    }

    /// The level the recording's rounding adds to a sound, as a frame's level is measured, in dB
    /// full scale (nil when no sample was heard): a white noise of the quantisation step's power
    /// `q² / 12` through the tracker's front end.
    private mutating func roundingDB() -> Double? {
        guard let step = roundings.step else { return nil }
        if let known = roundingLevel, known.step == step { return known.levelDB }
        let q = Double(step)
        let level = 10 * logarithm10(q * q / 12 * whiteNoiseGain)
        roundingLevel = (step, level)
        return level
    }

    /// The frame with its pressure and zone filled in from its pitch.
    private func withPressure(_ frame: SessionFrame, exhaling: Bool) -> SessionFrame {
        var frame = frame
        frame.exhaling = exhaling
        if let pitch = frame.pitch {
            let pressure = configuration.device.pressure(forPitch: pitch)
            frame.pressure = pressure
            frame.zone = configuration.target.zone(of: pressure)
        }
        return frame
    }

    private mutating func apply(_ decision: ExhalationDetector.Decision, newest: Int) {
        switch decision {
        case let .exhalationStarted(first):
            mark(from: max(first, finalCount), through: newest, exhaling: true)
            for k in pendingHuffs.indices.reversed() where pendingHuffs[k].followedBy == nil {
                guard first - pendingHuffs[k].sound.upperBound <= inhalationLeadFrames else { break }
                pendingHuffs[k].followedBy = first
            }
        case let .exhalationEnded(last):
            mark(from: max(last + 1, finalCount), through: newest, exhaling: false)
        case let .exhalationWithdrawn(first):
            withdraw(from: first, through: newest)
        case let .doubtfulExhalationWithdrawn(first, last):
            withdraw(from: first, through: last)
        case let .huffCough(first, last, sound):
            let start = time(ofFrame: first)
            let event = SessionEvent(kind: .huffCough, time: start - frameInterval / 2, duration: time(ofFrame: last) - start + frameInterval)
            pendingHuffs.append((max(sound.upperBound + huffWaitFrames, finalCount), event, sound, nil))
        case let .inhalation(first, last):
            countInhalation(first...last)
        }
    }

    /// Takes back an exhalation over frames `first...last`: its frames are not exhaling, and a huff
    /// cough it followed is no longer the breath in before it.
    private mutating func withdraw(from first: Int, through last: Int) {
        mark(from: max(first, finalCount), through: last, exhaling: false)
        for k in pendingHuffs.indices where pendingHuffs[k].followedBy == first { pendingHuffs[k].followedBy = nil }
    }

    private mutating func countInhalation(_ frames: ClosedRange<Int>) {
        inhalationTime += Double(frames.count) * frameInterval
        inhalationCount += 1
    }

    private func time(ofFrame index: Int) -> Double {
        pending[index & pendingMask].time
    }

    private mutating func mark(from first: Int, through last: Int, exhaling: Bool) {
        guard first <= last else { return }
        for index in first...last { pending[index & pendingMask].exhaling = exhaling }
    }

    private mutating func finalize(onOutput: (SessionOutput) -> Void) {
        let slot = finalCount & pendingMask
        var frame = pending[slot]
        frame.pitch = pitchAverage.pitch(at: finalCount) { index in
            index >= 0 && index < self.frameCount ? self.pending[index & self.pendingMask].pitch : nil
        }
        finalCount += 1
        roomRises.process(levelDB: frame.levelDB, exhaling: frame.exhaling)
        if frame.exhaling {
            frame = withPressure(frame, exhaling: true)
        } else {
            frame.pitch = nil
        }
        lastFinalTime = frame.time
        if frame.exhaling {
            if breath == nil {
                let start = frame.time - frameInterval / 2
                if let last = setBreaths.last {
                    let pause = start - last.end
                    if pause >= configuration.setPause || (huffsAfterLastBreath > 0 && pause >= configuration.huffSetPause) {
                        closeSet(at: start, onOutput: onOutput)
                    }
                }
                huffsAfterLastBreath = 0
                breath = (start, frame.time, FlutterStatistics())
                onOutput(.event(SessionEvent(
                    kind: .breathStarted, time: start, breath: breaths.count + 1, set: sets.count + 1,
                    breathInSet: setBreaths.count + 1)))
            }
            breath?.lastTime = frame.time
            breath?.statistics.add(frame)
        } else {
            closeBreath(onOutput: onOutput)
            if let last = setBreaths.last, frame.time - last.end >= configuration.setPause {
                closeSet(at: frame.time, onOutput: onOutput)
            }
        }
        onOutput(.frame(frame))
        emitHuffCoughs(upTo: finalCount - 1, onOutput: onOutput)
    }

    private mutating func emitHuffCoughs(upTo frameIndex: Int, onOutput: (SessionOutput) -> Void) {
        while let huff = pendingHuffs.first, huff.frame <= frameIndex {
            pendingHuffs.removeFirst()
            guard huff.followedBy == nil else {
                countInhalation(huff.sound)
                continue
            }
            guard !breaths.isEmpty else { continue }  // huffs follow a set: none before the first breath
            var event = huff.event
            huffCoughs += 1
            if !setBreaths.isEmpty {
                huffsAfterLastBreath += 1
                event.set = sets.count + 1
            } else if !sets.isEmpty {
                sets[sets.count - 1].huffCoughs += 1
                event.set = sets.count
            }
            onOutput(.event(event))
        }
    }

    private mutating func closeBreath(onOutput: (SessionOutput) -> Void) {
        guard let open = breath else { return }
        breath = nil
        let s = open.statistics
        let record = Breath(
            index: breaths.count + 1, set: sets.count + 1, start: open.start, end: open.lastTime + frameInterval / 2,
            duration: open.lastTime + frameInterval / 2 - open.start, meanPressure: s.meanPressure,
            minPressure: s.lowestPressure, maxPressure: s.highestPressure, meanPitch: s.meanPitch,
            shareInTarget: s.zoneShares?.within, flutterShare: s.flutterShare,
            unmeasured: s.unmeasuredFrames.scaled(by: frameInterval),
            signal: s.signal(roomDB: detector.backgroundDB, roundingDB: roundingDB(), check: signalCheck.configuration))
        breaths.append(record)
        setBreaths.append(record)
        setStatistics.add(s)
        session.add(s)
        onOutput(.event(SessionEvent(
            kind: .breathEnded, time: record.start, duration: record.duration, breath: record.index, set: record.set,
            breathInSet: setBreaths.count)))
    }

    private mutating func closeSet(at time: Double, onOutput: (SessionOutput) -> Void) {
        guard let first = setBreaths.first, let last = setBreaths.last else { return }
        let set = TherapySet(
            index: sets.count + 1, start: first.start, end: last.end, breathCount: setBreaths.count,
            huffCoughs: huffsAfterLastBreath,
            meanPressure: setStatistics.meanPressure, shareInTarget: setStatistics.zoneShares?.within)
        sets.append(set)
        huffsAfterLastBreath = 0
        setBreaths.removeAll(keepingCapacity: true)
        setStatistics = FlutterStatistics()
        onOutput(.event(SessionEvent(kind: .setEnded, time: set.start, duration: set.end - set.start, set: set.index)))
    }
}

// JSON lives in the outer modules; Embedded Swift has no Codable.
#if !hasFeature(Embedded)
extension SessionAnalyzer.Configuration: Codable {
    /// Decodes stored settings tolerantly: what is missing (stored before it existed) takes its
    /// default, and keys this release does not know are ignored.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let tracker = try c.decode(FlutterPitchTracker.Configuration.self, forKey: .tracker)
        self.init(sampleRate: tracker.sampleRate)
        try c.update(&device, from: .device)
        try c.update(&target, from: .target)
        self.tracker = tracker
        try c.update(&detector, from: .detector)
        try c.update(&signal, from: .signal)
        try c.update(&setPause, from: .setPause)
        huffSetPause = Self.defaultHuffSetPause(setPause: setPause)
        try c.update(&huffSetPause, from: .huffSetPause)
        try c.update(&pitchAverageTime, from: .pitchAverageTime)
        try c.update(&earlyGaugeTime, from: .earlyGaugeTime)
        try c.update(&inhalationLead, from: .inhalationLead)
    }
}
#endif
