
/// The study's run-length / decay-rate moving average of the period (seed 000 section 3 step 8).
///
/// `runLength` counts consecutive accepted estimates that agree with the average. The weight of
/// the old average is `mix = decayRate ^ runLength` (runLength capped at `maxRunLength`), and
/// `average = average × mix + new × (1 - mix)`: at the start of a run, or right after an outlier,
/// the old average is trusted more; once the run is long a new estimate moves it almost at once,
/// so a stable track follows the breath with little lag while a single stray estimate is ignored.
///
/// An estimate that disagrees with the average by more than `tolerance` resets the run to zero
/// and is not mixed in; `reacquireCount` such estimates in a row that agree with each other start
/// a new average (a real jump in pitch). A miss (correlation at or below the acceptance) shortens
/// the run by one; `dropCount` misses in a row drop the track altogether.
struct PeriodSmoother {
    struct Settings {
        var decayRate: Double
        var maxRunLength: Int
        var tolerance: Double
        var reacquireCount: Int
        var dropCount: Int
        var reportRunLength: Int
    }

    let settings: Settings
    private let mixes: [Double]
    private(set) var average: Double?
    private(set) var runLength = 0
    private var misses = 0
    private var outliers = 0
    private var outlierAverage: Double = 0
    /// Whether the average has been reported since the track was found.
    private var reporting = false

    init(settings: Settings) {
        self.settings = settings
        mixes = (0...max(1, settings.maxRunLength)).map { power(settings.decayRate, Double($0)) }
    }

    mutating func reset() {
        average = nil
        reporting = false
        runLength = 0
        misses = 0
        outliers = 0
    }

    /// Starts the average afresh at `period` (an octave correction: the track was on a multiple).
    mutating func restart(at period: Double) {
        average = period
        runLength = 0
        misses = 0
        outliers = 0
    }

    /// Takes one frame's accepted period (or nil for a miss) and returns the smoothed period to
    /// report for this frame, or nil when no pitch should be reported.
    mutating func update(accepted period: Double?) -> Double? {
        guard let period else {
            misses += 1
            outliers = 0
            runLength = max(0, runLength - 1)
            if misses >= settings.dropCount { reset() }
            return reporting ? average : nil
        }
        misses = 0
        guard let current = average else {
            average = period
            runLength = 1
            return runLength >= settings.reportRunLength ? period : nil
        }
        if abs(period - current) <= settings.tolerance * current {
            outliers = 0
            runLength = min(settings.maxRunLength, runLength + 1)
            let mix = mixes[runLength]
            let updated = current * mix + period * (1 - mix)
            average = updated
            if runLength >= settings.reportRunLength { reporting = true }
            return reporting ? updated : nil
        }
        runLength = 0
        if outliers > 0, abs(period - outlierAverage) <= settings.tolerance * outlierAverage {
            outliers += 1
            outlierAverage += (period - outlierAverage) / Double(outliers)
        } else {
            outliers = 1
            outlierAverage = period
        }
        if outliers >= settings.reacquireCount {
            average = outlierAverage
            runLength = 1
            outliers = 0
        }
        return nil
    }
}
