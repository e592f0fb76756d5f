import Foundation

/// A decoded real recording, mono.
public struct RecordedClip: Sendable {
    /// The name ``RecordedInterference`` refers to it by: its path relative to the library's directory.
    public var name: String
    public var sampleRate: Double
    public var samples: [Float]

    public init(name: String, sampleRate: Double, samples: [Float]) {
        self.name = name
        self.sampleRate = sampleRate
        self.samples = samples
    }
}

/// A part of the random corpus, with its own seeds and its own real recordings.
public enum CorpusSplit: String, Sendable, Codable, CaseIterable {
    case tuning
    case heldOut = "held-out"
}

/// Real recordings by name, decoded once and shared by every session that mixes them in.
public struct RecordingLibrary: Sendable {
    /// The recordings only held-out sessions hear, besides the coughs with odd numbers.
    public static let heldOutRecordings: Set<String> = [
        "speech-librispeech-5703-47212.flac", "music-hobbs-lets-go-fishin.flac", "noise-kitchen-dishes.flac",
    ]

    public private(set) var clips: [String: RecordedClip] = [:]

    public init(_ clips: [RecordedClip] = []) {
        for clip in clips { self.clips[clip.name] = clip }
    }

    /// The names of the recordings `split` may hear, sorted.
    public func names(in split: CorpusSplit) -> [String] {
        clips.keys.filter { Self.split(of: $0) == split }.sorted()
    }

    /// The split a recording belongs to: the ``heldOutRecordings`` and the coughs with odd numbers
    /// (`coughs/cough-07.flac`) are held out, everything else is for tuning.
    public static func split(of name: String) -> CorpusSplit {
        if heldOutRecordings.contains(name) { return .heldOut }
        if name.hasPrefix("coughs/"), let number = Int(name.filter(\.isNumber)) {
            return number % 2 == 1 ? .heldOut : .tuning
        }
        return .tuning
    }
}

/// Real recordings playing under a session at its sample rate: one looped throughout, or bursts
/// in the rests between breaths.
struct RecordedSound: Sendable {
    private struct Placement: Sendable {
        var clip: [Float]
        var resampler: SincResampler
        var frames: Range<Int>
        var gain: Double
        var start: Double
        var fade: Int
    }

    private static let fadeSeconds = 0.02
    private var placements: [Placement] = []
    private let looping: Bool

    init(
        _ interference: RecordedInterference, library: RecordingLibrary, breaths: [TrueBreath], duration: Double,
        sampleRate: Double, seed: UInt64
    ) throws(SimulationError) {
        var clips: [RecordedClip] = []
        for file in interference.files {
            guard let clip = library.clips[file], !clip.samples.isEmpty else { throw .missingRecording(file) }
            clips.append(clip)
        }
        looping = !interference.bursts
        let level = amplitude(decibels: interference.levelDB)
        let totalFrames = Int((duration * sampleRate).rounded(.up))
        if looping {
            let clip = clips[0]
            placements = [Placement(
                clip: clip.samples, resampler: SincResampler(inputRate: clip.sampleRate, outputRate: sampleRate),
                frames: 0..<totalFrames, gain: level / Self.rms(clip, loudPartOnly: false),
                start: interference.start * Double(clip.samples.count), fade: 0)]
            return
        }
        var gaps = zip([0] + breaths.map(\.end), breaths.map(\.start) + [duration - SessionPlan.tail])
            .map { ($0 + 0.3)...max($0 + 0.3, $1 - 0.3) }
            .filter { $0.upperBound - $0.lowerBound > 0.5 }
        var g = SeededGenerator(seed: seed, stream: .recording)
        for clip in clips where !gaps.isEmpty {
            let gap = gaps.remove(at: g.integer(0...(gaps.count - 1)))
            let length = min(Double(clip.samples.count) / clip.sampleRate, gap.upperBound - gap.lowerBound)
            let first = Int((gap.lowerBound * sampleRate).rounded(.up))
            placements.append(Placement(
                clip: clip.samples, resampler: SincResampler(inputRate: clip.sampleRate, outputRate: sampleRate),
                frames: first..<(first + Int(length * sampleRate)), gain: level / Self.rms(clip, loudPartOnly: true),
                start: 0, fade: Int(Self.fadeSeconds * sampleRate)))
        }
    }

    /// Adds the recordings' frames `firstFrame..<firstFrame + output.count` into `output`.
    mutating func render(into output: UnsafeMutableBufferPointer<Double>, firstFrame: Int) {
        let block = firstFrame..<(firstFrame + output.count)
        for p in placements {
            let frames = p.frames.clamped(to: block)
            guard !frames.isEmpty else { continue }
            p.clip.withUnsafeBufferPointer { samples in
                for frame in frames {
                    let position = p.start + Double(frame - p.frames.lowerBound) * p.resampler.step
                    let fade = p.fade > 0 ? smoothstep(Double(p.frames.upperBound - frame) / Double(p.fade)) : 1
                    output[frame - firstFrame] += p.gain * fade * p.resampler.value(samples, at: position, looping: looping)
                }
            }
        }
    }

    /// The RMS of `samples`, or of their 10 ms blocks within 20 dB of the loudest (a burst's loud part).
    private static func rms(_ clip: RecordedClip, loudPartOnly: Bool) -> Double {
        let samples = clip.samples
        let block = max(1, Int(0.01 * clip.sampleRate))
        let energies = stride(from: 0, to: samples.count, by: block).map { start in
            samples[start..<min(start + block, samples.count)].reduce(0.0) { $0 + Double($1) * Double($1) }
                / Double(min(block, samples.count - start))
        }
        let floor = loudPartOnly ? 0.01 * (energies.max() ?? 0) : 0
        let loud = energies.filter { $0 >= floor }
        return max((loud.reduce(0, +) / Double(max(loud.count, 1))).squareRoot(), 1e-9)
    }
}
