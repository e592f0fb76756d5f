/// The last few values of a measure taken once per event (an exhalation, a pause), for their
/// median or lower quartile: a ring allocated up front, kept sorted beside it.
struct RecentValues {
    private var ring: [Double]
    private var sorted: [Double]
    private var added = 0

    /// Room for the last `capacity` values.
    init(capacity: Int) {
        ring = [Double](repeating: 0, count: max(1, capacity))
        sorted = ring
    }

    /// How many values are kept (at most the capacity).
    var count: Int { min(added, ring.count) }

    /// Keeps `value`, forgetting the oldest when full.
    mutating func add(_ value: Double) {
        ring[added % ring.count] = value
        added += 1
        for i in 0..<count { sorted[i] = ring[i] }
        sortPrefix(&sorted, count: count)
    }

    /// The median of the kept values (the mean of the middle two when their count is even).
    var median: Double? {
        count > 0 ? medianOfSortedPrefix(sorted, count: count) : nil
    }

    /// The lower quartile of the kept values: the one a quarter of the way up (rounded down).
    var lowerQuartile: Double? {
        count > 0 ? sorted[count / 4] : nil
    }

    mutating func removeAll() {
        added = 0
    }
}

/// Sorts the first `count` of `values` in place without allocating: an insertion sort, for the
/// few dozen values an event leaves or a click's neighbourhood (the standard library's sort may
/// take a buffer).
func sortPrefix<Values: MutableCollection>(_ values: inout Values, count: Int) where Values.Index == Int, Values.Element: Comparable {
    guard count > 1 else { return }
    for i in 1..<count {
        let value = values[i]
        var j = i
        while j > 0, values[j - 1] > value {
            values[j] = values[j - 1]
            j -= 1
        }
        values[j] = value
    }
}

/// The median of the first `count` (at least one) of `values`, already sorted: the middle one, or
/// the mean of the middle two when their count is even.
func medianOfSortedPrefix(_ values: [Double], count: Int) -> Double {
    count % 2 == 1 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2
}
