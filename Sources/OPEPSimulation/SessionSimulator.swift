/// Renders a synthetic OPEP session chunk by chunk, with its exact ground truth.
///
/// The whole timeline is planned up front from the seed; audio is rendered on demand with every
/// filter and oscillator state carried across chunks, so the samples do not depend on how the
/// session is cut into chunks and memory does not grow with the session's length.
///
/// With a ``SessionVariation`` the patient's sound also passes through the room's reverberation,
/// real recordings from a ``RecordingLibrary`` play under it, and the varied ``RecordingChain``
/// (low-cut, distance, room tone, clipping, gain control, quantisation) replaces the nominal
/// microphone. Its codec is left to the caller.
public struct SessionSimulator: Sendable {
    /// Frames rendered per internal block; larger requests are rendered block by block.
    private static let blockSize = 4096

    /// What the session contains, exactly.
    public let groundTruth: GroundTruth
    /// Length of the session in frames.
    public let totalFrames: Int
    /// Frames rendered so far.
    public private(set) var position = 0

    private let sampleRate: Double
    private let events: [SessionPlan.Event]
    private var nextEvent = 0
    private var flutter: FlutterVoice
    private var inhalation: BreathingVoice
    private var huff: HuffVoice
    private var interference: Interference
    private var microphone: MicrophoneResponse
    private var reverberation: Reverberation?
    private var recorded: RecordedSound?
    private var stage: RecordingStage?
    private var mix = [Double](repeating: 0, count: blockSize)
    private var patient = [Double](repeating: 0, count: blockSize)

    /// Validates the configuration and plans the whole session (every breath's timing, pressure
    /// curve and sound details) from its seed. `recordings` holds the real recordings its
    /// variation mixes in, if any.
    public init(configuration: SimulationConfiguration, recordings: RecordingLibrary = RecordingLibrary()) throws(SimulationError) {
        try configuration.validate()
        let plan = SessionPlan(configuration: configuration)
        sampleRate = configuration.sampleRate
        events = plan.events
        totalFrames = Int((plan.duration * sampleRate).rounded(.up))
        groundTruth = GroundTruth(
            configuration: configuration, duration: plan.duration, breaths: plan.breaths, huffs: plan.huffs,
            plainExhalations: plan.plainExhalations)
        flutter = FlutterVoice(configuration: configuration)
        inhalation = BreathingVoice(configuration: configuration)
        huff = HuffVoice(configuration: configuration)
        interference = Interference(configuration: configuration)
        microphone = MicrophoneResponse(sampleRate: sampleRate, lowCut: configuration.variation?.chain.lowCut ?? 100)
        guard let variation = configuration.variation else { return }
        let chain = variation.chain
        reverberation = Reverberation(
            reverbTime: chain.reverbTime, directToReverberantDB: chain.directToReverberantDB, sampleRate: sampleRate)
        stage = RecordingStage(chain: chain, sampleRate: sampleRate, seed: configuration.seed)
        if let recording = variation.recording {
            recorded = try RecordedSound(
                recording, library: recordings, breaths: plan.breaths, duration: plan.duration, sampleRate: sampleRate,
                seed: configuration.seed)
        }
    }

    /// Renders the next up to `maxFrames` samples (mono, in [-1, 1]) into `buffer`, replacing its
    /// contents, and returns how many were rendered: 0 once the session is over.
    ///
    /// Chunks may have any size; the concatenated samples are the same whatever the sizes. Memory
    /// stays constant however long the session.
    public mutating func render(into buffer: inout [Float], maxFrames: Int) -> Int {
        let count = max(0, min(maxFrames, totalFrames - position))
        if buffer.count != count {
            buffer.removeAll(keepingCapacity: true)
            buffer.append(contentsOf: repeatElement(0, count: count))
        }
        var mix = self.mix
        var patient = self.patient
        self.mix = []
        self.patient = []
        buffer.withUnsafeMutableBufferPointer { output in
            mix.withUnsafeMutableBufferPointer { block in
                patient.withUnsafeMutableBufferPointer { patientBlock in
                    var done = 0
                    while done < count {
                        let frames = min(Self.blockSize, count - done)
                        let blockMix = UnsafeMutableBufferPointer(rebasing: block[0..<frames])
                        let destination = UnsafeMutableBufferPointer(rebasing: output[done..<(done + frames)])
                        if stage == nil {
                            interference.render(into: blockMix)
                            renderPatient(into: blockMix)
                            microphone.process(blockMix, into: destination)
                        } else {
                            renderVaried(
                                into: blockMix, patient: UnsafeMutableBufferPointer(rebasing: patientBlock[0..<frames]),
                                output: destination)
                        }
                        position += frames
                        done += frames
                    }
                }
            }
        }
        self.mix = mix
        self.patient = patient
        return count
    }

    /// The varied chain: the patient's sounds through the room's reverberation, the interference
    /// and real recordings, the microphone and the rest of the recording chain.
    private mutating func renderVaried(
        into block: UnsafeMutableBufferPointer<Double>, patient: UnsafeMutableBufferPointer<Double>,
        output: UnsafeMutableBufferPointer<Float>
    ) {
        interference.render(into: block)
        recorded?.render(into: block, firstFrame: position)
        patient.update(repeating: 0)
        renderPatient(into: patient)
        for i in block.indices {
            block[i] += reverberation!.process(patient[i])
            output[i] = stage!.process(microphone.filter(block[i]))
        }
    }

    /// Adds the patient's sounds for frames `position..<position + block.count` into `block`.
    private mutating func renderPatient(into block: UnsafeMutableBufferPointer<Double>) {
        let end = position + block.count
        while nextEvent < events.count, events[nextEvent].firstFrame < end {
            let event = events[nextEvent]
            let frames = max(event.firstFrame, position)..<min(event.endFrame, end)
            if !frames.isEmpty {
                switch event.sound {
                case let .inhalation(flow):
                    inhalation.render(
                        start: event.start, duration: event.duration, level: event.level, flow: flow,
                        beginning: frames.lowerBound == event.firstFrame, frames: frames, into: block, firstFrame: position)
                case let .plainExhalation(flow):
                    inhalation.render(
                        exhalationStart: event.start, duration: event.duration, level: event.level, flow: flow,
                        beginning: frames.lowerBound == event.firstFrame, frames: frames, into: block, firstFrame: position)
                case let .exhalation(sound):
                    if frames.lowerBound == event.firstFrame {
                        flutter.begin(sound)
                    }
                    flutter.render(sound, level: event.level, frames: frames, into: block, firstFrame: position)
                case .huff:
                    huff.render(
                        start: event.start, duration: event.duration, level: event.level, frames: frames,
                        into: block, firstFrame: position)
                }
            }
            guard event.endFrame <= end else { break }
            nextEvent += 1
        }
    }
}
