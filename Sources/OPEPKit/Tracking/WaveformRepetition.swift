/// The octave of a buzz: whether the sound's waveform, not only its envelope, repeats at twice a
/// period the envelope gave (not the study's).
///
/// A valve that opens and closes sharply makes a buzz close to a square wave: once high-passed,
/// an edge of each sign per cycle, of the same energy. Its envelope then repeats every half
/// cycle, as well as every cycle, and reads as a flutter at twice the rate: the rule that prefers
/// the shorter of two periods correlating nearly as well (`octaveShare`, against half-rate
/// reports) takes the half cycle. Eight breaths of a square buzz at 12-28 Hz under white noise
/// at -10 dB, through a phone's 100 Hz high-pass, were reported at twice their rate in 5 of the 8
/// (the 5 whose double lay in the band); the same breaths as a sawtooth or a pulse train were
/// not. The waveform keeps the sign the energy loses: it repeats at the cycle and is inverted at
/// half of it.
///
/// So the tracker keeps the high-passed audio low-passed at ``rate`` (980 Hz, a whole multiple of
/// the energy rate: ``AudioEnergyFrontEnd``, step 6), aligned with the envelope's span, and takes twice a period
/// the envelope gave when the waveform's Pearson correlation (``LaggedCorrelation``, linear
/// between the two lags around a fractional one) reaches `minimum` (default 0.5) at twice the
/// period and at most `-minimum` at the period itself (inverted after half a cycle: a waveform
/// whose envelope repeats every half cycle has halves of the same energy, either alike, and then
/// its period is the half, or inverted), and when it reaches `minimum` at no whole fraction of
/// twice the period down to ``shortestPeriod`` (3 ms): a hum repeats at every multiple of its own
/// period, a buzz only at its cycle. And it must have shown a buzz for ``persistence`` (0.1 s,
/// checked every acquisition interval): tones of music or speech can share a common period for a
/// moment. Breath noise has no repeating waveform (its correlation is near 0 at every lag), so
/// there nothing changes.
///
/// All memory is allocated by the initialiser.
struct WaveformRepetition {
    /// The correlation at twice the period that makes the period twice as long.
    let minimum: Double
    /// Waveform samples per energy sample.
    let parts: Int
    /// Waveform samples in a span.
    let spanLength: Int
    /// The shortest fraction of twice the period checked, in waveform samples.
    let shortestLag: Int
    /// Waveform samples from the waveform to the envelope made of the same audio.
    let delay: Int
    /// The waveform, each sample written twice (at its slot and one ring further) so that any
    /// span is contiguous.
    private var ring: [Float]
    private let mask: Int

    /// The rate the waveform is kept at, in Hz: the study's energy rate. Low-passed with its first
    /// null there, a rocker's click (1.5-4 kHz) does not fold into it, and a buzz keeps the shape
    /// its octave is read from; where the energy rate is lower, the front end keeps several
    /// waveform samples per energy sample.
    static let rate = 980.0
    /// The shortest repetition of a waveform looked for below twice a period, in seconds: hum at
    /// 50 or 60 Hz and its harmonics, a voice's pitch up to 330 Hz.
    static let shortestPeriod = 0.003
    /// How long the waveform must show a buzz before a period is doubled, in seconds: music or
    /// speech whose tones share a common period can show one for a moment (30-70 ms on the first
    /// 400 random tuning sessions, where no flutter is a buzz), a buzz lasts. A track's first
    /// report waits for 0.1 s of agreeing estimates anyway.
    static let persistence = 0.1
    /// Checks in a row that must show a buzz: ``persistence`` at the checks' interval, rounded up.
    let persistenceChecks: Int
    /// How far, as a share of it, twice a frame's period may lie from the buzz's cycle shown.
    let tolerance: Double
    /// Checks in a row in which the waveform showed a buzz, and the cycle the last one showed.
    private var run = 0
    private var shownCycle: Double?

    /// - Parameters:
    ///   - sampleRate: the rate of the waveform, in Hz.
    ///   - parts: waveform samples per energy sample.
    ///   - spanLength: energy samples in the envelope's span.
    ///   - delay: energy samples from an energy sample to the envelope made of it (``EnvelopeView/delay``).
    ///   - checkInterval: the time between two checks of the waveform, in seconds.
    ///   - tolerance: see ``tolerance``.
    init(minimum: Double, sampleRate: Double, parts: Int, spanLength: Int, delay: Int, checkInterval: Double, tolerance: Double) {
        self.minimum = minimum
        self.tolerance = tolerance
        persistenceChecks = max(1, Int((Self.persistence / checkInterval).rounded(.up)))
        self.parts = parts
        self.spanLength = spanLength * parts
        self.delay = delay * parts
        shortestLag = max(2, Int((Self.shortestPeriod * sampleRate).rounded()))
        let capacity = ringLength(atLeast: self.spanLength + self.delay + parts, smallest: 16)
        ring = [Float](repeating: 0, count: 2 * capacity)
        mask = capacity - 1
    }

    mutating func reset() {
        for i in ring.indices { ring[i] = 0 }
        run = 0
        shownCycle = nil
    }

    /// Appends the waveform samples of `count` energy samples from energy sample `offset` in
    /// `block`, the first at energy sample `first`.
    mutating func append(_ block: UnsafePointer<Float>, from offset: Int, count: Int, at first: Int) {
        let mask = mask, capacity = mask + 1, parts = parts
        let start = first &* parts, source = block + offset &* parts
        ring.withUnsafeMutableBufferPointer { ring in
            for i in 0..<(count &* parts) {
                let slot = (start &+ i) & mask
                ring[slot] = source[i]
                ring[slot &+ capacity] = source[i]
            }
        }
    }

    /// The period to take for this frame's `period` (energy samples, nil for none), found in the
    /// envelope's span ending at energy sample `newest`. With `checks` (every acquisition
    /// interval) and a period the waveform is read: where it shows a buzz's cycle (see
    /// ``cycle(for:span:longest:)``) the run of checks that did grows, otherwise it ends; a gap
    /// without a period leaves it, so a buzzing device's next breath is doubled from its start.
    /// Once ``persistenceChecks`` in a row showed one, a period of which the last cycle shown is
    /// twice (within `tolerance`) is doubled; any other is `period` itself.
    mutating func period(for period: Double?, endingAt newest: Int, longest: Double, checks: Bool) -> Double? {
        if checks, let period {
            shownCycle = cycle(for: period, endingAt: newest, longest: longest)
            run = shownCycle == nil ? 0 : run + 1
        }
        guard let period, run >= persistenceChecks, let shownCycle,
            abs(2 * period - shownCycle) <= tolerance * shownCycle
        else { return period }
        return 2 * period
    }

    /// ``cycle(for:span:longest:)`` for the span ending at energy sample `newest`, in energy
    /// samples.
    private func cycle(for period: Double, endingAt newest: Int, longest: Double) -> Double? {
        let scale = Double(parts)
        let start = ((newest &+ 1) &* parts &- delay &- spanLength) & mask
        return ring.withUnsafeBufferPointer { ring in
            cycle(for: period * scale, span: ring.baseAddress! + start, longest: longest * scale).map { $0 / scale }
        }
    }

    /// The buzz's cycle the waveform shows for `period`: twice the period, or the period itself,
    /// where the waveform repeats (at least `minimum`) and is inverted half of it before (at most
    /// `-minimum`), repeats at no whole fraction of it down to ``shortestPeriod``, and the cycle
    /// is no longer than `longest`; nil otherwise.
    private func cycle(for period: Double, span: UnsafePointer<Float>, longest: Double) -> Double? {
        let here = correlation(span, at: period)
        let cycle: Double
        if here <= -minimum {
            cycle = 2 * period
        } else if here >= minimum {
            cycle = period
        } else {
            return nil
        }
        guard cycle <= longest else { return nil }
        let atCycle = cycle == period ? here : correlation(span, at: cycle)
        let atHalf = cycle == period ? correlation(span, at: period / 2) : here
        guard atCycle >= minimum, atHalf <= -minimum else { return nil }
        var divisor = 3.0
        while cycle / divisor >= Double(shortestLag) {
            if correlation(span, at: cycle / divisor) >= minimum { return nil }
            divisor += 1
        }
        return cycle
    }

    /// The correlation of the span with itself shifted by `lag`, linear between the whole lags
    /// around it.
    private func correlation(_ span: UnsafePointer<Float>, at lag: Double) -> Double {
        let below = Int(lag.rounded(.down)), fraction = lag - Double(below)
        let low = correlation(span, at: below)
        return fraction > 0 ? low + fraction * (correlation(span, at: below + 1) - low) : low
    }

    /// The Pearson correlation of the span with itself shifted by `lag` (-1 when too short or
    /// constant). Most checks read one or two lags (breath noise correlates near 0 at the first),
    /// so each segment's sums are taken where they are needed, eight lanes at a time, rather than
    /// running totals over the whole span made for every check.
    private func correlation(_ span: UnsafePointer<Float>, at lag: Int) -> Double {
        let count = spanLength - lag
        guard count >= LaggedCorrelation.fewestPairs else { return -1 }
        let a = Self.totals(span, count: count), b = Self.totals(span + lag, count: count)
        return LaggedCorrelation.pearson(
            product: Double(LaggedCorrelation.dot(span, lag: lag, count: count)),
            sumA: a.sum, squaresA: a.squares, sumB: b.sum, squaresB: b.squares, count: count) ?? -1
    }

    /// The sum of `count` samples from `x` and of their squares, in eight lanes of doubles added
    /// pairwise, then the rest one by one.
    @inline(__always)
    private static func totals(_ x: UnsafePointer<Float>, count: Int) -> (sum: Double, squares: Double) {
        var sum = SIMD8<Double>.zero, squares = SIMD8<Double>.zero
        var i = 0
        while i &+ 8 <= count {
            let v = SIMD8<Double>(UnsafeRawPointer(x + i).loadUnaligned(as: SIMD8<Float>.self))
            sum += v
            squares += v * v
            i &+= 8
        }
        @inline(__always) func total(_ v: SIMD8<Double>) -> Double {
            let four = v.lowHalf + v.highHalf, two = four.lowHalf + four.highHalf
            return two[0] + two[1]
        }
        var rest = (sum: total(sum), squares: total(squares))
        while i < count {
            let value = Double(x[i])
            rest.sum += value
            rest.squares += value * value
            i &+= 1
        }
        return rest
    }
}
