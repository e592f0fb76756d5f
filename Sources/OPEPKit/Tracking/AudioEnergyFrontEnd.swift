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
/// 5. Beside it (unless off, as for the study), the same energy of the high-passed audio
///    whitened by ``WhiteningPredictor``: the error of its second-order linear prediction, with
///    coefficients from the blocks before. Breath through a device is loudest below 500 Hz, and
///    the energy of a noise that narrow fluctuates by itself at the flutter's rates: its envelope
///    has few independent samples per flutter cycle. Whitened, the energy is spread over the whole
///    band, so it follows the rocker, not the noise's own beating. The plain energy stays the
///    sound's level.
/// 6. Beside them, the high-passed samples' weighted mean over each part of a block and the one
///    before, the weights rising and falling in a triangle: the waveform itself, low-passed (first
///    null at the waveform's rate, 27 dB down at 1.5 times it and more above, so a rocker's click
///    of 1.5-4 kHz does not fold into it) and kept with its sign, which the energy loses
///    (``WaveformRepetition`` reads it). A block is cut into the whole number of parts that
///    brings the waveform's rate nearest to the one asked for (one part when it is the energy
///    rate; the block's length then a multiple of the parts).
///
/// The seed lists a downsampling "by 45" both before the high-pass and in the block average; two
/// reductions by 45 would leave ~22 Hz sampling, below the Nyquist rate of a 40 Hz flutter. The
/// consistent reading, used here, is that the reduction by 45 at 44.1 kHz happens once, ending in
/// the block average of squares, with the high-pass and squaring done before it at an audio rate.
///
/// Each group's mean becomes a 24-bit fixed-point integer (clamped to ±255; a group with a NaN or
/// an infinity counts as silence) and the moving sum runs on integers: integer sums are exact in
/// any order, so the filter never drifts over hours of audio and gives the same bits whatever the
/// chunking. A group straddling two chunks is summed in the same order as any other, and the
/// analysis samples are filtered in whole blocks only (the rest waits for the next chunk, which
/// delays no energy sample: a block's energy needs all of it), so every block is summed the same
/// way. The work runs in batches of up to 4096 input samples as simple loops over straight lines
/// of samples, which the compiler vectorises (group means, fixed point, the high-passed samples),
/// then one pass per block for all of its sums, four lanes at a time.
struct AudioEnergyFrontEnd {
    /// Input samples averaged into one analysis sample.
    let groupLength: Int
    /// Analysis samples per energy sample.
    let analysisBlockLength: Int
    /// Waveform samples per energy sample: the parts a block is cut into.
    let waveformParts: Int
    /// Analysis samples per waveform sample.
    var waveformPartLength: Int { analysisBlockLength / waveformParts }
    /// Input samples per energy sample.
    var blockLength: Int { groupLength * analysisBlockLength }
    /// Moving-average length of the high-pass, in analysis samples (odd).
    let averageLength: Int
    /// Delay from input to energy, in input samples, of the grouping and the high-pass.
    let delay: Double
    /// The share of a white noise's power at the input that reaches the plain energy: a group's
    /// mean keeps `1 / R` of it, the high-pass `1 - 1 / L`.
    var whiteNoiseGain: Double { (1 - 1 / Double(averageLength)) / Double(groupLength) }
    /// Whether the whitened energy is made (otherwise it is the plain energy).
    var whitens: Bool { predictor != nil }

    private static let scale: Float = 8_388_608
    /// 1.5 × 2⁵²: adding it to a Double below 2⁵¹ in magnitude leaves the rounded integer in the
    /// low bits of the result, a conversion without the range check of `Int32(_:)` (the value is
    /// already clamped to ±255 × 2²³ < 2³¹).
    private static let roundingMagic: Double = 6_755_399_441_055_744
    /// Groups formed per batch.
    private let batchGroups: Int
    /// A batch's group means.
    private var means: [Float]
    /// The last two high-passed samples filtered, then a batch's high-passed samples.
    private var highPassed: [Float]
    /// The whitening filter's predictor; nil without whitening.
    private var predictor: WhiteningPredictor?
    /// The last `averageLength` fixed-point samples filtered, then the samples waiting to be.
    private var line: [Int32]
    /// Analysis samples in `line` after the history, not yet filtered.
    private var waiting = 0
    /// The samples of a group not yet complete at the end of a chunk.
    private var group: [Float]
    private var grouped = 0
    private var sum: Int64 = 0
    private let inverseGroup: Float
    private let inverseAverage: Float
    private let inverseBlock: Float
    /// The weights of a part's samples, 0, 1, ... `waveformPartLength - 1`.
    private var ramp: [Float]
    /// The last part's sum of the high-passed samples, and of them weighted by ``ramp``.
    private var lastWaveformSums: (plain: Float, ramped: Float) = (0, 0)

    /// - Parameters:
    ///   - whiteningTime: the memory of the ``WhiteningPredictor``, in seconds; 0 makes no
    ///     whitened energy.
    ///   - waveformRate: the rate the waveform is wanted at, in Hz (step 6); the energy rate when nil.
    init(
        sampleRate: Double, highPassCutoff: Double, energyRate: Double, analysisRate: Double, whiteningTime: Double,
        waveformRate: Double? = nil
    ) {
        groupLength = max(1, Int((sampleRate / analysisRate).rounded(.down)))
        let rate = sampleRate / Double(groupLength)
        let half = max(2, Int((rate / highPassCutoff / 2).rounded()))
        averageLength = 2 * half + 1
        let parts = max(1, Int(((waveformRate ?? energyRate) / energyRate).rounded()))
        waveformParts = parts
        analysisBlockLength = parts * max(1, Int((rate / (energyRate * Double(parts))).rounded()))
        delay = Double(half * groupLength)
        batchGroups = max(1, 4096 / groupLength)
        let batch = batchGroups + analysisBlockLength
        means = [Float](repeating: 0, count: batchGroups)
        highPassed = [Float](repeating: 0, count: batch + 2)
        predictor = whiteningTime > 0
            ? WhiteningPredictor(blockDuration: Double(analysisBlockLength) / rate, memoryTime: whiteningTime) : nil
        line = [Int32](repeating: 0, count: averageLength + batch)
        group = [Float](repeating: 0, count: groupLength)
        inverseGroup = 1 / Float(groupLength)
        inverseAverage = 1 / (Float(averageLength) * Self.scale)
        inverseBlock = 1 / Float(analysisBlockLength)
        ramp = (0..<(analysisBlockLength / parts)).map(Float.init)
    }

    mutating func reset() {
        for i in line.indices { line[i] = 0 }
        lastWaveformSums = (0, 0)
        waiting = 0
        grouped = 0
        sum = 0
        predictor?.reset()
        highPassed[0] = 0
        highPassed[1] = 0
    }

    /// The most energy samples one call can produce for `sampleCount` samples.
    func capacity(for sampleCount: Int) -> Int { sampleCount / blockLength + 2 }

    /// Processes a chunk, writing every completed block's mean square to `energies` and that of
    /// its whitened samples to `whitenedEnergies` (each with room for ``capacity(for:)`` values),
    /// and its ``waveformParts`` waveform samples (step 6) to `waveform` (room for that many times
    /// as many); returns how many blocks were written.
    mutating func process(
        _ samples: UnsafeBufferPointer<Float>, into energies: UnsafeMutablePointer<Float>,
        whitened whitenedEnergies: UnsafeMutablePointer<Float>, waveform: UnsafeMutablePointer<Float>
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
                written += filter(into: energies + written, whitened: whitenedEnergies + written, waveform: waveform + written * waveformParts)
            }
        }
        while count - i >= r {
            let groups = min(batchGroups, (count - i) / r)
            convert(base + i, groups: groups)
            written += filter(into: energies + written, whitened: whitenedEnergies + written, waveform: waveform + written * waveformParts)
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
    /// samples waiting in `line`.
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

    /// Converts `count` values to fixed point after the samples waiting in `line`.
    private mutating func quantise(_ values: UnsafePointer<Float>, count: Int) {
        let scale = Self.scale, magic = Self.roundingMagic, first = averageLength &+ waiting
        line.withUnsafeMutableBufferPointer { line in
            for j in 0..<count {
                let x = values[j]
                let value = x.isFinite ? (x < -255 ? -255 : (x > 255 ? 255 : x)) : 0
                line[first &+ j] = Int32(truncatingIfNeeded: (Double(value * scale) + magic).bitPattern)
            }
        }
        waiting &+= count
    }

    /// A block's sums: of the high-passed samples `y`, of them weighted by `ramp`, of their
    /// squares and of their products with the one and the two before. Each in four lanes over
    /// the whole groups of four from the block's start, then the rest one by one; lanes added
    /// pairwise, then the rest: the same order for every block, in one pass over it.
    @inline(__always)
    private static func blockSums(
        _ y: UnsafePointer<Float>, _ ramp: UnsafePointer<Float>, count: Int
    ) -> (sum: Float, ramped: Float, energy: Float, lag1: Float, lag2: Float) {
        @inline(__always) func four(_ p: UnsafePointer<Float>) -> SIMD4<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self) }
        var sum = SIMD4<Float>.zero, ramped = sum, energy = sum, lag1 = sum, lag2 = sum
        var k = 0
        while k &+ 4 <= count {
            let v = four(y + k)
            sum += v
            ramped += v * four(ramp + k)
            energy += v * v
            lag1 += v * four(y + (k &- 1))
            lag2 += v * four(y + (k &- 2))
            k &+= 4
        }
        var rest: (sum: Float, ramped: Float, energy: Float, lag1: Float, lag2: Float) = (0, 0, 0, 0, 0)
        while k < count {
            let v = y[k]
            rest.sum += v
            rest.ramped += v * ramp[k]
            rest.energy += v * v
            rest.lag1 += v * y[k &- 1]
            rest.lag2 += v * y[k &- 2]
            k &+= 1
        }
        @inline(__always) func total(_ lanes: SIMD4<Float>, _ rest: Float) -> Float { (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + rest }
        return (total(sum, rest.sum), total(ramped, rest.ramped), total(energy, rest.energy), total(lag1, rest.lag1), total(lag2, rest.lag2))
    }

    /// Runs the moving sum over the whole blocks of samples waiting in `line`, writes their mean
    /// squares to `output`, their whitened energies to `whitenedOutput` and their waveform (step 6)
    /// to `waveform`, and keeps the newest samples as the next history; returns how many blocks
    /// were written.
    ///
    /// Two straight passes, the running integer sum (serial, but one integer add per sample) and
    /// the high-passed samples (vectorised), then one pass per part of a block for all its sums
    /// (``blockSums(_:_:count:)``), the block's added part by part. The whitened energy is made of a block's sums (see
    /// ``WhiteningPredictor/errorEnergy(_:)``).
    private mutating func filter(
        into output: UnsafeMutablePointer<Float>, whitened whitenedOutput: UnsafeMutablePointer<Float>,
        waveform: UnsafeMutablePointer<Float>
    ) -> Int {
        let block = analysisBlockLength, blocks = waiting / block, count = blocks * block
        guard blocks > 0 else { return 0 }
        let length = averageLength, lag = averageLength / 2
        let inverseScale = 1 / Self.scale, inverseLength = inverseAverage, inverseB = inverseBlock
        var s = sum, predictor = predictor, last = lastWaveformSums
        let parts = waveformParts, part = waveformPartLength
        line.withUnsafeMutableBufferPointer { buffer in
            guard let line = buffer.baseAddress else { return }
            highPassed.withUnsafeMutableBufferPointer { history in
                ramp.withUnsafeBufferPointer { ramp in
                    guard let y = history.baseAddress.map({ $0 + 2 }), let ramp = ramp.baseAddress else { return }
                    for i in 0..<count {
                        s &+= Int64(line[length &+ i]) &- Int64(line[i])
                        y[i] = Float(s)
                    }
                    let centre = line + (length &- lag)
                    for i in 0..<count { y[i] = Float(centre[i]) * inverseScale - y[i] * inverseLength }
                    let partLength = Float(part), inversePart = 1 / partLength, inverseSquare = inversePart * inversePart
                    for b in 0..<blocks {
                        let f = b &* block, l = f &+ block &- 1
                        var energy: Float = 0, lag1: Float = 0, lag2: Float = 0
                        for p in 0..<parts {
                            let sums = Self.blockSums(y + f + p &* part, ramp, count: part)
                            waveform[b &* parts &+ p] = (last.ramped + last.plain + partLength * sums.sum - sums.ramped) * inverseSquare
                            last = (sums.sum, sums.ramped)
                            energy += sums.energy
                            lag1 += sums.lag1
                            lag2 += sums.lag2
                        }
                        output[b] = energy * inverseB
                        guard var whitening = predictor else {
                            whitenedOutput[b] = output[b]
                            continue
                        }
                        let blockSums = WhiteningPredictor.BlockSums(
                            energy: energy, lag1: lag1, lag2: lag2,
                            before: (y[f &- 1] * y[f &- 1], y[f &- 2] * y[f &- 2], y[f &- 1] * y[f &- 2]),
                            last: (y[l] * y[l], y[l &- 1] * y[l &- 1], y[l] * y[l &- 1]))
                        whitenedOutput[b] = whitening.errorEnergy(blockSums) * inverseB
                        whitening.update(blockSums)
                        predictor = whitening
                    }
                }
                history[0] = history[count]
                history[1] = history[count &+ 1]
            }
            let kept = length &+ waiting &- count
            for i in 0..<kept { line[i] = line[i &+ count] }
        }
        sum = s
        self.predictor = predictor
        lastWaveformSums = last
        waiting -= count
        return blocks
    }
}
