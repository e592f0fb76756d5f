/// The smoothed energy turned into the envelope's RMS amplitude (its square root), in place.
///
/// The autocorrelation then weighs the sound's amplitude rather than its power: a lip click or a
/// knock on the table, 20 dB above the breath for a few milliseconds, stands 10 times above the
/// flow instead of 100 times, so it no longer dominates the correlations of the 25 frames whose
/// 0.25 s span it falls in (on the energy, one click could pull the correlation at the flutter's
/// period from 0.8 to 0.3 and make one at twice the period), and the loud moments of a breath's
/// own fluctuation weigh less against its steady modulation. Digital silence stays 0, so a
/// flutter's onset stands out as sharply as before (a logarithm would make the step from silence
/// the strongest feature of every span around an onset, delaying the gauge by 0.1 s).
///
/// For a shallow modulation the amplitude's relative depth is half the energy's: see
/// ``relativeDepth(standardDeviation:level:)``.
struct AmplitudeEnvelope {
    /// Replaces each of the `count` energies at `block` with its square root. An energy is never
    /// negative; the root of its magnitude is the same number, and the compiler, knowing the
    /// argument is not negative, takes eight or sixteen roots in one instruction instead of one
    /// by one with a C library call on the path for negative numbers.
    func process(_ block: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { block[i] = block[i].magnitude.squareRoot() }
    }

    /// The depth of the energy's modulation, the standard deviation of the detrended amplitude
    /// envelope over the amplitude of the energy `level` and doubled: for `e = L (1 + m s)` with
    /// a small `m`, the amplitude is `√L (1 + m s / 2)`, so this is `m · std(s)`, the energy's
    /// own relative depth.
    static func relativeDepth(standardDeviation: Double, level: Double) -> Double {
        level > 0 ? 2 * standardDeviation / level.squareRoot() : 0
    }
}
