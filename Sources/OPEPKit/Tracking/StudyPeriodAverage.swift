/// The study's run-length / decay-rate moving average of the period, as its write-up gives it
/// (S. Skatter, "Auto-determination of proper usage of Acapella by detecting pitch in audio
/// input", Smiths Group Digital Forge, 2017; seed 000 section 3 step 8).
///
/// - The run length starts at 0 and grows by one with each accepted period, up to
///   `round(1 / (1 - decayRate))` (5 for the study's decay rate 0.8).
/// - The average of the period and of its change per frame predict the next period. A leap
///   further from that prediction than the change itself (plus `accuracy` of the period, the
///   study's 2.5 % "freqAccuracy") shortens the run by as many such steps as the leap is long.
/// - `mix = min(decayRate, 1 - 1 / runLength)` and `average = average × mix + new × (1 - mix)`,
///   for the period and its change alike (the study also averages the amplitude, which the
///   tracker does not need): a new run follows its first estimates at once and settles to the
///   decay rate as it lengthens.
/// - A frame without an accepted estimate shortens the run by one; the average is the pitch the
///   tracker reports (`pitch = 1 / average`) for as long as the run lasts.
/// - A leap that shortens the run to nothing starts a new run at the new period, as the first
///   estimate did (its change 0, not the leap).
///
/// The write-up does not say how long a leap's "equivalent number" is, nor what a miss does to
/// the run, nor what a new run's change is; the readings above are ours.
struct StudyPeriodAverage {
    /// The weight of the old average once a run is long (default 0.8).
    let decayRate: Double
    /// Relative period error the study designed for (default 0.025).
    let accuracy: Double
    /// Longest run counted: `round(1 / (1 - decayRate))`.
    let maxRunLength: Int

    private(set) var average: Double?
    private(set) var change = 0.0
    private(set) var runLength = 0

    init(decayRate: Double = 0.8, accuracy: Double = 0.025) {
        self.decayRate = decayRate
        self.accuracy = accuracy
        maxRunLength = max(1, Int((1 / (1 - decayRate)).rounded()))
    }

    mutating func reset() {
        average = nil
        change = 0
        runLength = 0
    }

    /// Takes one frame's accepted period (nil for none) and returns the average period to report
    /// for this frame, nil when there is no run.
    mutating func update(accepted period: Double?) -> Double? {
        guard let period else {
            runLength = max(0, runLength - 1)
            if runLength == 0 { reset() }
            return average
        }
        guard let current = average else {
            average = period
            change = 0
            runLength = 1
            return period
        }
        let predicted = current + change
        let step = abs(change) + accuracy * current
        let leap = abs(period - predicted)
        if leap > step {
            runLength = max(0, runLength - Int((leap / step).rounded(.down)))
        }
        guard runLength > 0 else {
            average = period
            change = 0
            runLength = 1
            return period
        }
        runLength = min(maxRunLength, runLength + 1)
        let mix = min(decayRate, 1 - 1 / Double(runLength))
        let updated = current * mix + period * (1 - mix)
        change = change * mix + (period - current) * (1 - mix)
        average = updated
        return updated
    }
}
