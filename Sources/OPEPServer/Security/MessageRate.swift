/// A token bucket over one connection's messages: up to `burst` at once, then `perSecond` on
/// average. A connection over the rate is made to wait (its messages are read later, so TCP slows
/// the sender down); nothing it sent is lost.
struct MessageRate {
    let perSecond: Double
    let burst: Double
    private var available: Double
    private var updated: ContinuousClock.Instant?

    init(perSecond: Double, burst: Int) {
        self.perSecond = perSecond
        self.burst = Double(max(1, burst))
        available = self.burst
    }

    /// Takes one message's place at `now`; returns how long to wait before handling it.
    mutating func take(now: ContinuousClock.Instant) -> Duration {
        if let updated {
            let elapsed = now - updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            available = min(burst, available + seconds * perSecond)
        }
        updated = now
        available -= 1
        guard available < 0, perSecond.isFinite, perSecond > 0 else { return .zero }
        return .seconds(-available / perSecond)
    }
}
