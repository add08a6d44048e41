import Store
import Synchronization

/// A token bucket: `rate` tokens a second flow in, up to `burst`; taking more than it holds is
/// refused with the seconds until enough will have flowed in. A request larger than the burst
/// is let through once the bucket is full (it then owes the difference), so no request size is
/// refused for ever.
struct TokenBucket: Equatable {
    private(set) var rate: Double
    private(set) var burst: Double
    private(set) var tokens: Double
    private var updated: Double

    /// A full bucket at time `now` (seconds on any monotonic clock).
    init(rate: Double, burst: Double, now: Double) {
        self.rate = rate
        self.burst = burst
        tokens = burst
        updated = now
    }

    /// Takes `count` tokens; nil when taken, else the seconds to wait before asking again.
    mutating func take(_ count: Double, now: Double) -> Double? {
        refill(now)
        let needed = min(count, burst)
        guard tokens >= needed else { return (needed - tokens) / rate }
        tokens -= count
        return nil
    }

    /// A changed limit keeps what the bucket holds, within the new burst.
    mutating func setLimit(rate: Double, burst: Double, now: Double) {
        refill(now)
        self.rate = rate
        self.burst = burst
        tokens = min(tokens, burst)
    }

    private mutating func refill(_ now: Double) {
        if now > updated { tokens = min(burst, tokens + (now - updated) * rate) }
        updated = max(updated, now)
    }
}

/// The token buckets of the keys that have a rate limit, in memory (a restart starts them full).
final class KeyRateLimiter: Sendable {
    private let buckets = Mutex<[String: TokenBucket]>([:])
    private let clock: @Sendable () -> Double

    /// `clock`: monotonic seconds (tests pass their own).
    init(clock: @escaping @Sendable () -> Double = KeyRateLimiter.monotonicSeconds) {
        self.clock = clock
    }

    private static let origin = ContinuousClock.now

    static func monotonicSeconds() -> Double {
        let now = ContinuousClock.now - origin
        return Double(now.components.seconds) + Double(now.components.attoseconds) / 1e18
    }

    /// Takes `events` from the key's bucket: nil when allowed (or the key has no limit), else
    /// the whole seconds for `Retry-After` (at least 1).
    func admit(key: KeyRecord, events: Int) -> Int? {
        guard let limit = key.rateLimit else { return nil }
        let now = clock()
        let wait = buckets.withLock { buckets -> Double? in
            var bucket =
                buckets[key.id] ?? TokenBucket(rate: limit.eventsPerSecond, burst: Double(limit.burst), now: now)
            if bucket.rate != limit.eventsPerSecond || bucket.burst != Double(limit.burst) {
                bucket.setLimit(rate: limit.eventsPerSecond, burst: Double(limit.burst), now: now)
            }
            let wait = bucket.take(Double(events), now: now)
            buckets[key.id] = bucket
            return wait
        }
        return wait.map { max(1, Int($0.rounded(.up))) }
    }
}
