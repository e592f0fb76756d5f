/// One view of the sound the period search reads: an energy signal made into the detrended
/// envelope (steps 3-4 of ``FlutterPitchTracker``), kept with its level in rings long enough for
/// one span, with running sums from which ``PeriodSearch`` reads any segment's sums.
///
/// The tracker keeps two: the whitened energy's, which it searches first, and the plain
/// energy's, whose level is the sound's level and which it searches when the first hears no
/// flutter (see ``FlutterPitchTracker/Configuration/whiteningTime``).
///
/// Processing allocates nothing; ``process(_:count:)`` takes blocks of up to `maximumBlock`.
struct EnvelopeView {
    let envelope: FlutterPitchTracker.Envelope
    private var clicks: ClickSuppressor
    private var smoother: GaussianSmoother
    private var levelAverage: MovingAverageHighPass
    private var detrender: MovingAverageHighPass
    private let amplitude = AmplitudeEnvelope()
    /// The last block's levels (the smoothed energy's moving average).
    private var means: [Float]
    /// A copy of the last block's smoothed energy.
    private var linear: [Float]
    /// The detrended envelope, each sample written twice (at its slot and one ring further) so
    /// that any span is contiguous.
    private var ring: [Float]
    private var levels: [Float]
    /// Running sums of the envelope and of its squares per slot. They are taken back to zero each
    /// time the ring wraps, so they never hold more than two rings' worth.
    private var sums: [Double]
    private var squares: [Double]
    private var runningSum = 0.0
    private var runningSquares = 0.0
    let mask: Int

    /// Samples from an energy sample to the envelope and level made of it.
    var delay: Int { smoother.halfWidth + detrender.delay }

    /// - Parameters:
    ///   - sigma: the Gaussian smoother's σ, in energy samples.
    ///   - detrendHalfLength: half the moving average's length, in energy samples.
    ///   - spanLength: the longest span read.
    init(
        envelope: FlutterPitchTracker.Envelope, clicks: ClickSuppressor, sigma: Double, detrendHalfLength: Int, spanLength: Int,
        maximumBlock: Int
    ) {
        self.envelope = envelope
        self.clicks = clicks
        smoother = GaussianSmoother(sigma: sigma, maximumBlock: maximumBlock)
        detrender = MovingAverageHighPass(halfLength: detrendHalfLength, maximumBlock: maximumBlock)
        levelAverage = detrender
        means = [Float](repeating: 0, count: maximumBlock)
        linear = means
        let capacity = ringLength(atLeast: spanLength + 1, smallest: 16)
        ring = [Float](repeating: 0, count: 2 * capacity)
        levels = [Float](repeating: 0, count: capacity)
        sums = [Double](repeating: 0, count: capacity)
        squares = sums
        mask = capacity - 1
    }

    mutating func reset() {
        clicks.reset()
        smoother.reset()
        levelAverage.reset()
        detrender.reset()
        for i in ring.indices { ring[i] = 0 }
        for i in levels.indices { levels[i] = 0 }
        for i in sums.indices { sums[i] = 0 }
        for i in squares.indices { squares[i] = 0 }
        runningSum = 0
        runningSquares = 0
    }

    /// Turns `count` energies at `block` into the detrended envelope in place, keeping their
    /// levels for ``append(_:from:count:at:)``.
    mutating func process(_ block: UnsafeMutablePointer<Float>, count: Int) {
        clicks.process(block, count: count)
        smoother.process(block, count: count)
        var meanBuffer: [Float] = [], linearBuffer: [Float] = []
        swap(&meanBuffer, &means)
        swap(&linearBuffer, &linear)
        defer {
            swap(&meanBuffer, &means)
            swap(&linearBuffer, &linear)
        }
        meanBuffer.withUnsafeMutableBufferPointer { means in
            linearBuffer.withUnsafeMutableBufferPointer { linears in
                guard let mean = means.baseAddress, let linear = linears.baseAddress else { return }
                guard envelope == .amplitude else { return detrender.process(block, means: mean, count: count) }
                linear.update(from: block, count: count)
                levelAverage.process(linear, means: mean, count: count)
                amplitude.process(block, count: count)
                // The amplitude's own moving average is not needed: `linear` is free again.
                detrender.process(block, means: linear, count: count)
            }
        }
    }

    /// Appends `count` envelope samples of the last processed block, from `offset`, and their
    /// levels to the rings, the first at energy sample `first`.
    mutating func append(_ block: UnsafePointer<Float>, from offset: Int, count: Int, at first: Int) {
        let mask = mask, capacity = mask + 1
        means.withUnsafeBufferPointer { means in
            levels.withUnsafeMutableBufferPointer { levels in
                for i in 0..<count { levels[(first &+ i) & mask] = means[offset &+ i] }
            }
        }
        var total = runningSum, totalSquares = runningSquares
        ring.withUnsafeMutableBufferPointer { ring in
            sums.withUnsafeMutableBufferPointer { sums in
                squares.withUnsafeMutableBufferPointer { squares in
                    for i in 0..<count {
                        let slot = (first &+ i) & mask
                        let value = block[offset &+ i]
                        ring[slot] = value
                        ring[slot &+ capacity] = value
                        total += Double(value)
                        totalSquares += Double(value) * Double(value)
                        sums[slot] = total
                        squares[slot] = totalSquares
                        guard slot == mask else { continue }
                        for j in 0..<capacity {
                            sums[j] -= total
                            squares[j] -= totalSquares
                        }
                        total = 0
                        totalSquares = 0
                    }
                }
            }
        }
        runningSum = total
        runningSquares = totalSquares
    }

    /// The level at energy sample `index` (still in the rings).
    func level(at index: Int) -> Double { Double(max(0, levels[index & mask])) }

    /// Calls `body` with the span of `length` samples ending at energy sample `newest`.
    func withSpan<Result>(endingAt newest: Int, length: Int, _ body: (PeriodSearch.Span) -> Result) -> Result {
        let before = newest - length
        return ring.withUnsafeBufferPointer { ring in
            sums.withUnsafeBufferPointer { sums in
                squares.withUnsafeBufferPointer { squares in
                    body(PeriodSearch.Span(
                        samples: ring.baseAddress! + ((before &+ 1) & mask), sums: sums.baseAddress!,
                        squares: squares.baseAddress!, mask: mask, before: before & mask))
                }
            }
        }
    }
}
