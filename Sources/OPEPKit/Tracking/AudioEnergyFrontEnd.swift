/// From audio to the study's "audio energy" near 1 kHz (seed 000 section 3 steps 2-5).
///
/// 1. Average groups of `R = floor(fs / fmin)` samples (at least 1; `fmin` = 14 kHz by default), so
///    everything after runs at 14-28 kHz whatever the input rate: 14.7 kHz for 44.1 kHz (R = 3),
///    16 kHz for 48 and 96 kHz, the input rate itself below 28 kHz. The envelope of the flow
///    noise is all the tracker needs and it is clear below 7 kHz; even 8 kHz recordings meet
///    every accuracy target of the evaluation.
/// 2. High-pass by subtracting a centred moving average of odd length
///    `L = 2·round(fa / 500) + 1` at the analysis rate `fa` (first null ~250 Hz, the "formant
///    removal"): `y[n] = x[n - D] - mean(x[n-L+1 ... n])`, linear phase, delay `D = (L-1)/2`.
/// 3. Square.
/// 4. Average blocks of `round(fa / 980 Hz)` analysis samples: 15 at 44.1 kHz, so one energy
///    sample per 45 input samples as in the study.
/// 5. Beside it, the same energy of the high-passed audio after a first-order pre-emphasis,
///    `w[n] = y[n] - a·y[n-1]` (`a` = 1 by default: +6 dB per octave; 0 leaves the audio as it
///    is, the study's). Breath through a device is loudest below 500 Hz, and the energy of a
///    noise that narrow fluctuates by itself at the flutter's rates: its envelope has few
///    independent samples per flutter cycle. Tilting the spectrum towards flat spreads the energy
///    over the whole band, so the energy follows the rocker, not the noise's own beating (the
///    linear-prediction "pre-emphasis" of speech analysis: Makhoul, "Linear prediction: a
///    tutorial review", Proc. IEEE 63(4), 1975). The plain energy stays the sound's level.
///
/// The seed lists a downsampling "by 45" both before the high-pass and in the block average; two
/// reductions by 45 would leave ~22 Hz sampling, below the Nyquist rate of a 40 Hz flutter. The
/// consistent reading, used here, is that the reduction by 45 at 44.1 kHz happens once, ending in
/// the block average of squares, with the high-pass and squaring done before it at an audio rate.
///
/// Each group's mean becomes a 24-bit fixed-point integer (clamped to ±255; a group with a NaN or
/// an infinity counts as silence) and the moving sum runs on integers: integer sums are exact in any order, so
/// the filter never drifts over hours of audio and gives the same bits whatever the chunking.
/// A group straddling two chunks is summed in the same order as any other. The work runs in
/// batches of up to 4096 input samples as simple loops over straight lines of samples, most of
/// which the compiler vectorises: group means, fixed point, the running sum, the high-passed
/// squares, the block sums.
struct AudioEnergyFrontEnd {
    /// Input samples averaged into one analysis sample.
    let groupLength: Int
    /// Analysis samples per energy sample.
    let analysisBlockLength: Int
    /// Input samples per energy sample.
    var blockLength: Int { groupLength * analysisBlockLength }
    /// Moving-average length of the high-pass, in analysis samples (odd).
    let averageLength: Int
    /// Delay from input to energy, in input samples, of the grouping and the high-pass.
    let delay: Double
    /// Pre-emphasis coefficient `a` of `w[n] = y[n] - a·y[n-1]`, in 0...1.
    let preEmphasis: Float

    private static let scale: Float = 8_388_608
    /// 1.5 × 2⁵²: adding it to a Double below 2⁵¹ in magnitude leaves the rounded integer in the
    /// low bits of the result, a conversion without the range check of `Int32(_:)` (the value is
    /// already clamped to ±255 × 2²³ < 2³¹).
    private static let roundingMagic: Double = 6_755_399_441_055_744
    /// Groups formed per batch.
    private let batchGroups: Int
    /// A batch's group means.
    private var means: [Float]
    /// A batch's moving sums, then their high-passed values, then those values' squares.
    private var movingSums: [Float]
    /// A batch's pre-emphasised squares.
    private var emphasised: [Float]
    /// The last high-passed sample of the previous batch.
    private var previous: Float = 0
    private var emphasisedAccumulator: Float = 0
    /// The last `averageLength` fixed-point samples, then room for a batch of them.
    private var line: [Int32]
    /// The samples of a group not yet complete at the end of a chunk.
    private var group: [Float]
    private var grouped = 0
    private var sum: Int64 = 0
    private var accumulator: Float = 0
    private var filled = 0
    private let inverseGroup: Float
    private let inverseAverage: Float
    private let inverseBlock: Float

    init(sampleRate: Double, highPassCutoff: Double, energyRate: Double, analysisRate: Double, preEmphasis: Double) {
        groupLength = max(1, Int((sampleRate / analysisRate).rounded(.down)))
        let rate = sampleRate / Double(groupLength)
        let half = max(2, Int((rate / highPassCutoff / 2).rounded()))
        averageLength = 2 * half + 1
        analysisBlockLength = max(1, Int((rate / energyRate).rounded()))
        delay = Double(half * groupLength)
        batchGroups = max(1, 4096 / groupLength)
        means = [Float](repeating: 0, count: batchGroups)
        movingSums = means
        emphasised = means
        self.preEmphasis = Float(preEmphasis)
        line = [Int32](repeating: 0, count: averageLength + batchGroups)
        group = [Float](repeating: 0, count: groupLength)
        inverseGroup = 1 / Float(groupLength)
        inverseAverage = 1 / (Float(averageLength) * Self.scale)
        inverseBlock = 1 / Float(analysisBlockLength)
    }

    mutating func reset() {
        for i in line.indices { line[i] = 0 }
        grouped = 0
        sum = 0
        accumulator = 0
        emphasisedAccumulator = 0
        previous = 0
        filled = 0
    }

    /// The most energy samples one call can produce for `sampleCount` samples.
    func capacity(for sampleCount: Int) -> Int { sampleCount / blockLength + 2 }

    /// Processes a chunk, writing every completed block's mean square to `energies` and that of
    /// its pre-emphasised samples to `emphasisedEnergies` (each with room for
    /// ``capacity(for:)`` values); returns how many blocks were written.
    mutating func process(
        _ samples: UnsafeBufferPointer<Float>, into energies: UnsafeMutablePointer<Float>,
        emphasised emphasisedEnergies: UnsafeMutablePointer<Float>
    ) -> Int {
        guard let base = samples.baseAddress else { return 0 }
        let count = samples.count
        let r = groupLength
        var written = 0
        var i = 0
        while grouped > 0, i < count {
            group[grouped] = base[i]
            grouped += 1
            i += 1
            if grouped == r {
                grouped = 0
                var complete: [Float] = []
                swap(&complete, &group)
                complete.withUnsafeBufferPointer { if let first = $0.baseAddress { convert(first, groups: 1) } }
                swap(&complete, &group)
                written += filter(count: 1, into: energies + written, emphasised: emphasisedEnergies + written)
            }
        }
        while count - i >= r {
            let groups = min(batchGroups, (count - i) / r)
            convert(base + i, groups: groups)
            written += filter(count: groups, into: energies + written, emphasised: emphasisedEnergies + written)
            i += groups * r
        }
        while i < count {
            group[grouped] = base[i]
            grouped += 1
            i += 1
        }
        return written
    }

    /// Stores the means of `groups` whole groups starting at `input` in fixed point after the
    /// history in `line`.
    private mutating func convert(_ input: UnsafePointer<Float>, groups: Int) {
        let r = groupLength
        guard r > 1 else { return quantise(input, count: groups) }
        means.withUnsafeMutableBufferPointer { means in
            let inverse = inverseGroup
            switch r {
            case 2: for j in 0..<groups { means[j] = (input[2 &* j] + input[2 &* j &+ 1]) * inverse }
            case 3: for j in 0..<groups { means[j] = (input[3 &* j] + input[3 &* j &+ 1] + input[3 &* j &+ 2]) * inverse }
            default:
                for j in 0..<groups {
                    let first = input + j &* r
                    var total = first[0]
                    for k in 1..<r { total += first[k] }
                    means[j] = total * inverse
                }
            }
        }
        var scratch: [Float] = []
        swap(&scratch, &means)
        scratch.withUnsafeBufferPointer { if let first = $0.baseAddress { quantise(first, count: groups) } }
        swap(&scratch, &means)
    }

    /// Converts `count` values to fixed point after the history in `line`.
    private mutating func quantise(_ values: UnsafePointer<Float>, count: Int) {
        let scale = Self.scale, magic = Self.roundingMagic, first = averageLength
        line.withUnsafeMutableBufferPointer { line in
            for j in 0..<count {
                let x = values[j]
                let value = x.isFinite ? (x < -255 ? -255 : (x > 255 ? 255 : x)) : 0
                line[first &+ j] = Int32(truncatingIfNeeded: (Double(value * scale) + magic).bitPattern)
            }
        }
    }

    /// Runs the moving sum over the `count` samples after the history in `line`, squares the
    /// high-passed and the pre-emphasised samples, writes completed blocks to `output` and
    /// `emphasisedOutput` and keeps the newest samples as the next history; returns how many
    /// blocks were written.
    ///
    /// Four passes: the running integer sum (serial, but one integer add per sample), the
    /// high-passed samples (vectorised), their pre-emphasised squares and their squares, and the
    /// block sums, each block a short chain of its own so that consecutive blocks overlap in the
    /// processor.
    private mutating func filter(
        count: Int, into output: UnsafeMutablePointer<Float>, emphasised emphasisedOutput: UnsafeMutablePointer<Float>
    ) -> Int {
        let length = averageLength, lag = averageLength / 2, block = analysisBlockLength
        let inverseScale = 1 / Self.scale, inverseLength = inverseAverage, inverseB = inverseBlock, a = preEmphasis
        var s = sum, plain = accumulator, tilted = emphasisedAccumulator, n = filled, written = 0
        line.withUnsafeMutableBufferPointer { buffer in
            guard let line = buffer.baseAddress else { return }
            movingSums.withUnsafeMutableBufferPointer { sums in
                emphasised.withUnsafeMutableBufferPointer { emphasised in
                    for i in 0..<count {
                        s &+= Int64(line[length &+ i]) &- Int64(line[i])
                        sums[i] = Float(s)
                    }
                    let centre = line + (length &- lag)
                    for i in 0..<count {
                        sums[i] = Float(centre[i]) * inverseScale - sums[i] * inverseLength
                    }
                    if count > 0 {
                        let w = sums[0] - a * previous
                        emphasised[0] = w * w
                        previous = sums[count &- 1]
                    }
                    for i in 1..<max(1, count) {
                        let w = sums[i] - a * sums[i &- 1]
                        emphasised[i] = w * w
                    }
                    for i in 0..<count { sums[i] *= sums[i] }
                    var i = 0
                    while i < count {
                        let end = min(count, i &+ (block &- n))
                        for k in i..<end {
                            plain += sums[k]
                            tilted += emphasised[k]
                        }
                        n &+= end &- i
                        i = end
                        if n == block {
                            output[written] = plain * inverseB
                            emphasisedOutput[written] = tilted * inverseB
                            written &+= 1
                            plain = 0
                            tilted = 0
                            n = 0
                        }
                    }
                }
            }
            for i in 0..<length { line[i] = line[i &+ count] }
        }
        (sum, accumulator, emphasisedAccumulator, filled) = (s, plain, tilted, n)
        return written
    }
}
