/// The length of a ring holding at least `count` items and at least `smallest` (a power of two):
/// the smallest power of two that is both, so that an item's slot is its index masked. The
/// engine's rings (the views' spans, the waveform, the meters' block totals, the pending frames)
/// are all made this way.
func ringLength(atLeast count: Int, smallest: Int = 1) -> Int {
    var length = smallest
    while length < count { length <<= 1 }
    return length
}
