/// A phone microphone: a 4th-order Butterworth high-pass at 100 Hz or `lowCut` (so the 10-40 Hz flutter
/// fundamental is all but gone), a gentle roll-off near the top of the band, a fixed gain that puts
/// a nominal exhalation at an RMS of about 0.1, and clipping to [-1, 1].
struct MicrophoneResponse: Sendable {
    /// Output RMS of a nominal exhalation.
    static let gain = 0.1

    private var highPass1: Biquad
    private var highPass2: Biquad
    private var lowPass: Biquad

    init(sampleRate: Double, lowCut: Double = 100) {
        highPass1 = .highPass(cutoff: lowCut, q: 0.5411961001461970, sampleRate: sampleRate)
        highPass2 = .highPass(cutoff: lowCut, q: 1.3065629648763766, sampleRate: sampleRate)
        lowPass = .lowPass(cutoff: min(16000, 0.45 * sampleRate), sampleRate: sampleRate)
    }

    /// The microphone's filtering of one sample, before gain and clipping.
    @inline(__always)
    mutating func filter(_ x: Double) -> Double {
        lowPass.process(highPass2.process(highPass1.process(x)))
    }

    /// Filters, amplifies and clips `input` into `output` (same count).
    mutating func process(_ input: UnsafeMutableBufferPointer<Double>, into output: UnsafeMutableBufferPointer<Float>) {
        for i in input.indices {
            output[i] = Float(min(max(Self.gain * filter(input[i]), -1), 1))
        }
    }
}
