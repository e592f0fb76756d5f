import Foundation

/// What one exhalation looks like to the flutter tracker: the figures of
/// `shared/real-breath-stats.md` ("What real breath looks like to the flutter tracker"), measured
/// on 257 real exhalations without a device, so that the simulator's breath can be compared with
/// real breath figure by figure.
///
/// Steps, as that document gives them:
/// 1. high-pass at 100 Hz (2nd-order Butterworth);
/// 2. energy envelope: squares averaged over blocks of round(fs / 980) samples, then Gaussian
///    smoothing with σ = 5 ms;
/// 3. modulation depth per band: RMS of the envelope band-passed (2nd-order Butterworth high-pass
///    and low-pass, run forwards and backwards) to 2-10, 10-20 and 20-40 Hz, over its mean;
/// 4. periodicity: the envelope less its 100 ms moving average; over 0.25 s windows every 10 ms,
///    the highest Pearson correlation between the window and the same window 25-100 ms later;
/// 5. spectrum (Welch, 2048 points, Hann, half overlap) of the high-passed sound: the frequencies
///    below which 10, 50 and 90 % of its energy lies, and the share below 500 Hz.
public struct BreathStatistics: Sendable, Hashable, Codable {
    /// Envelope modulation depth in 2-10, 10-20 and 20-40 Hz (RMS over mean).
    public var modulation: [Double]
    /// Median and 90th percentile over the windows of the best 10-40 Hz correlation.
    public var periodicityMedian: Double
    public var periodicityP90: Double
    /// Share of windows whose best correlation exceeds 0.4 and 0.6.
    public var shareAbove04: Double
    public var shareAbove06: Double
    /// Frequencies in Hz below which 10, 50 and 90 % of the energy lies.
    public var energyBelow: [Double]
    /// Share of the energy below 500 Hz.
    public var shareBelow500Hz: Double

    /// The envelope bands of step 3, in Hz.
    public static let modulationBands: [ClosedRange<Double>] = [2...10, 10...20, 20...40]
    /// Envelope rate aimed at by the block average of step 2, in Hz.
    static let envelopeRate = 980.0
    /// σ of the envelope's Gaussian smoothing, in seconds.
    static let smoothingSigma = 0.005
    /// Moving average removed before the periodicity, in seconds.
    static let detrendLength = 0.1
    /// Periodicity window and its hop, in seconds.
    static let window = 0.25
    static let hop = 0.01
    /// Lags searched: the periods of 40 to 10 Hz, in seconds.
    static let lags = 0.025...0.1
    /// Points of the Welch spectrum.
    static let fftLength = 2048

    /// Measures one exhalation (mono samples at `sampleRate`); nil when it is shorter than a
    /// periodicity window plus the longest lag.
    public init?(samples: [Float], sampleRate: Double) {
        var highPass = Biquad.highPass(cutoff: 100, sampleRate: sampleRate)
        let sound = samples.map { highPass.process(Double($0)) }
        let block = max(1, Int((sampleRate / Self.envelopeRate).rounded()))
        let rate = sampleRate / Double(block)
        var envelope = stride(from: 0, to: sound.count - block + 1, by: block).map { start in
            sound[start..<(start + block)].reduce(0) { $0 + $1 * $1 } / Double(block)
        }
        envelope = gaussianSmoothed(envelope, sigma: Self.smoothingSigma * rate)
        let window = Int((Self.window * rate).rounded())
        let longest = Int((Self.lags.upperBound * rate).rounded())
        guard envelope.count >= window + longest, sound.count >= Self.fftLength else { return nil }

        let mean = envelope.reduce(0, +) / Double(envelope.count)
        modulation = Self.modulationBands.map { band in
            var high = Biquad.highPass(cutoff: band.lowerBound, sampleRate: rate)
            var low = Biquad.lowPass(cutoff: band.upperBound, sampleRate: rate)
            var x = envelope.map { low.process(high.process($0)) }
            high = .highPass(cutoff: band.lowerBound, sampleRate: rate)
            low = .lowPass(cutoff: band.upperBound, sampleRate: rate)
            x = x.reversed().map { low.process(high.process($0)) }
            return (x.reduce(0) { $0 + $1 * $1 } / Double(x.count)).squareRoot() / mean
        }

        let detrended = zip(envelope, movingAverage(envelope, length: Int((Self.detrendLength * rate).rounded()))).map { $0 - $1 }
        let shortest = Int((Self.lags.lowerBound * rate).rounded())
        let step = max(1, Int((Self.hop * rate).rounded()))
        var best: [Double] = []
        for start in stride(from: 0, through: detrended.count - window - longest, by: step) {
            let reference = detrended[start..<(start + window)]
            var highest = -1.0
            for lag in shortest...longest {
                highest = max(highest, pearson(reference, detrended[(start + lag)..<(start + lag + window)]))
            }
            best.append(highest)
        }
        let sorted = best.sorted()
        periodicityMedian = sorted[sorted.count / 2]
        periodicityP90 = sorted[min(sorted.count - 1, Int(0.9 * Double(sorted.count)))]
        shareAbove04 = Double(best.filter { $0 > 0.4 }.count) / Double(best.count)
        shareAbove06 = Double(best.filter { $0 > 0.6 }.count) / Double(best.count)

        let spectrum = welchSpectrum(sound, length: Self.fftLength)
        let total = spectrum.reduce(0, +)
        var cumulative = 0.0
        var below = [Double](repeating: sampleRate / 2, count: 3)
        for (bin, power) in spectrum.enumerated() {
            cumulative += power
            for (k, share) in [0.1, 0.5, 0.9].enumerated() where below[k] == sampleRate / 2 && cumulative >= share * total {
                below[k] = Double(bin) * sampleRate / Double(Self.fftLength)
            }
        }
        energyBelow = below
        let edge = Int(500 * Double(Self.fftLength) / sampleRate)
        shareBelow500Hz = total > 0 ? spectrum[0...min(edge, spectrum.count - 1)].reduce(0, +) / total : 0
    }
}

/// `x` convolved with a unit-sum Gaussian of `sigma` samples (truncated at 3σ; edges renormalised).
private func gaussianSmoothed(_ x: [Double], sigma: Double) -> [Double] {
    let half = max(1, Int((3 * sigma).rounded(.up)))
    let kernel = (-half...half).map { exp(-0.5 * Double($0 * $0) / (sigma * sigma)) }
    return x.indices.map { i in
        var sum = 0.0
        var weight = 0.0
        for (k, w) in kernel.enumerated() {
            let j = i + k - half
            guard j >= 0, j < x.count else { continue }
            sum += w * x[j]
            weight += w
        }
        return sum / weight
    }
}

/// The centred moving average of `length` samples (shorter at the edges).
private func movingAverage(_ x: [Double], length: Int) -> [Double] {
    var prefix = [0.0]
    prefix.reserveCapacity(x.count + 1)
    for value in x { prefix.append(prefix.last! + value) }
    return x.indices.map { i in
        let low = max(0, i - length / 2)
        let high = min(x.count, low + length)
        return (prefix[high] - prefix[low]) / Double(high - low)
    }
}

private func pearson(_ a: ArraySlice<Double>, _ b: ArraySlice<Double>) -> Double {
    let n = Double(a.count)
    let meanA = a.reduce(0, +) / n
    let meanB = b.reduce(0, +) / n
    var ab = 0.0
    var aa = 0.0
    var bb = 0.0
    for (x, y) in zip(a, b) {
        ab += (x - meanA) * (y - meanB)
        aa += (x - meanA) * (x - meanA)
        bb += (y - meanB) * (y - meanB)
    }
    return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
}

/// The Welch power spectrum (bins 0...length/2) of `x`: Hann-windowed segments of `length`
/// samples overlapping by half, their power averaged.
private func welchSpectrum(_ x: [Double], length: Int) -> [Double] {
    let window = (0..<length).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(length)) }
    var power = [Double](repeating: 0, count: length / 2 + 1)
    for start in stride(from: 0, through: x.count - length, by: length / 2) {
        var re = (0..<length).map { x[start + $0] * window[$0] }
        var im = [Double](repeating: 0, count: length)
        fft(&re, &im)
        for k in power.indices { power[k] += re[k] * re[k] + im[k] * im[k] }
    }
    return power
}

/// In-place radix-2 FFT (the count a power of two).
private func fft(_ re: inout [Double], _ im: inout [Double]) {
    let n = re.count
    var j = 0
    for i in 1..<n {
        var bit = n >> 1
        while j & bit != 0 {
            j ^= bit
            bit >>= 1
        }
        j |= bit
        if i < j {
            re.swapAt(i, j)
            im.swapAt(i, j)
        }
    }
    var size = 2
    while size <= n {
        let angle = -2 * Double.pi / Double(size)
        for start in stride(from: 0, to: n, by: size) {
            for k in 0..<(size / 2) {
                let (c, s) = (cos(angle * Double(k)), sin(angle * Double(k)))
                let a = start + k
                let b = a + size / 2
                let tr = re[b] * c - im[b] * s
                let ti = re[b] * s + im[b] * c
                re[b] = re[a] - tr
                im[b] = im[a] - ti
                re[a] += tr
                im[a] += ti
            }
        }
        size <<= 1
    }
}
