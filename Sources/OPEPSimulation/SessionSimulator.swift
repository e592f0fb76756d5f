/// Renders a synthetic OPEP session chunk by chunk, with its exact ground truth.
///
/// The whole timeline is planned up front from the seed; audio is rendered on demand with every
/// filter and oscillator state carried across chunks, so the samples do not depend on how the
/// session is cut into chunks and memory does not grow with the session's length.
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
    private var inhalation: InhalationVoice
    private var huff: HuffVoice
    private var interference: Interference
    private var microphone: MicrophoneResponse
    private var mix = [Double](repeating: 0, count: blockSize)

    /// Validates the configuration and plans the whole session (every breath's timing, pressure
    /// curve and sound details) from its seed.
    public init(configuration: SimulationConfiguration) throws(SimulationError) {
        try configuration.validate()
        let plan = SessionPlan(configuration: configuration)
        sampleRate = configuration.sampleRate
        events = plan.events
        totalFrames = Int((plan.duration * sampleRate).rounded(.up))
        groundTruth = GroundTruth(
            configuration: configuration, duration: plan.duration, breaths: plan.breaths, huffs: plan.huffs)
        flutter = FlutterVoice(configuration: configuration)
        inhalation = InhalationVoice(configuration: configuration)
        huff = HuffVoice(configuration: configuration)
        interference = Interference(configuration: configuration)
        microphone = MicrophoneResponse(sampleRate: sampleRate)
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
        self.mix = []
        buffer.withUnsafeMutableBufferPointer { output in
            mix.withUnsafeMutableBufferPointer { block in
                var done = 0
                while done < count {
                    let frames = min(Self.blockSize, count - done)
                    let blockMix = UnsafeMutableBufferPointer(rebasing: block[0..<frames])
                    renderBlock(into: blockMix)
                    microphone.process(blockMix, into: UnsafeMutableBufferPointer(rebasing: output[done..<(done + frames)]))
                    position += frames
                    done += frames
                }
            }
        }
        self.mix = mix
        return count
    }

    /// Mixes the interference and the patient's sounds for frames `position..<position + block.count`.
    private mutating func renderBlock(into block: UnsafeMutableBufferPointer<Double>) {
        interference.render(into: block)
        let end = position + block.count
        while nextEvent < events.count, events[nextEvent].firstFrame < end {
            let event = events[nextEvent]
            let frames = max(event.firstFrame, position)..<min(event.endFrame, end)
            if !frames.isEmpty {
                switch event.sound {
                case .inhalation:
                    inhalation.render(
                        start: event.start, duration: event.duration, level: event.level, frames: frames,
                        into: block, firstFrame: position)
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
