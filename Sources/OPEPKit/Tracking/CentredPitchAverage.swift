/// The pitch a stored frame reports: the tracker's pitches averaged over the frames on either side
/// of it, as far as the track reaches evenly on both sides (not the study's).
///
/// The tracker's pitch is causal, so the gauge shows it at once; a stored frame is only final once
/// the exhalation detector has decided on it, over a second later (``SessionAnalyzer/latency``),
/// so its pitch can also read the frames after it. Frames 10 ms apart read spans of 0.25 s that
/// overlap by most of their audio, but the noise of a breath's envelope still varies from span to
/// span: averaging the estimates over ±0.1 s reads 0.45 s of the sound centred on the frame. On
/// the first 120 random tuning sessions the median session's median error against the rocker's
/// realised rate over 0.25 s fell from 0.199 Hz to 0.141, 0.132, 0.126, 0.125 and 0.135 Hz with
/// half-widths of 0.05, 0.075, 0.1, 0.15 and 0.2 s; the shortest of the best keeps the most of a
/// pressure that changes. The average stays centred: it takes frames in pairs, one before and one after, and stops at the
/// first pair that leaves the track (a frame without a pitch, or more than `consistency` away from
/// the frame's own pitch), so a ramp at a flutter's start or end is not biased by the frames it
/// lacks on one side.
///
/// Defaults (``SessionAnalyzer/Configuration``): half-width 0.1 s, consistency 0.12 (the tracker's own).
struct CentredPitchAverage {
    /// Frames either side of a frame that may join its average.
    let halfWidth: Int
    /// Largest relative difference from the frame's pitch that still counts as the same track.
    let consistency: Double

    /// - Parameters:
    ///   - halfWidth: how far either side of a frame the average reaches, in seconds.
    ///   - frameInterval: the frames' spacing, in seconds.
    init(halfWidth: Double, frameInterval: Double, consistency: Double) {
        self.halfWidth = max(0, Int((halfWidth / frameInterval).rounded()))
        self.consistency = consistency
    }

    /// The average around frame `index`, reading the tracker's pitch of any frame within
    /// ``halfWidth`` of it through `pitch` (nil for none, or for a frame that does not exist).
    func pitch(at index: Int, _ pitch: (Int) -> Double?) -> Double? {
        guard let centre = pitch(index) else { return nil }
        let limit = consistency * centre
        var total = centre
        var count = 1.0
        for offset in stride(from: 1, through: halfWidth, by: 1) {
            guard let before = pitch(index - offset), let after = pitch(index + offset),
                abs(before - centre) <= limit, abs(after - centre) <= limit
            else { break }
            total += before + after
            count += 2
        }
        return total / count
    }
}
