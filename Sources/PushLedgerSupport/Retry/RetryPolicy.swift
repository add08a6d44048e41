import Foundation

/// When and how often a client tries a request again: the ingest client and the SDK share it.
public struct RetryPolicy: Sendable {
    /// Total attempts, the first included.
    public var maxAttempts: Int
    /// Delay before the second attempt; doubles each time (with jitter) up to `maxDelay`.
    public var baseDelay: Double
    public var maxDelay: Double
    /// The longest `Retry-After` honoured (seconds).
    public var maxRetryAfter: Double

    public init(maxAttempts: Int = 6, baseDelay: Double = 0.2, maxDelay: Double = 10, maxRetryAfter: Double = 60) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// Seconds to wait after failed attempt number `attempt` (1-based): `Retry-After` when the
    /// server gave one, else exponential backoff with "equal jitter" (half fixed, half random).
    public func delay(afterAttempt attempt: Int, retryAfter: String?, random: Double) -> Double {
        if let retryAfter, let seconds = Double(retryAfter.trimmingCharacters(in: .whitespaces)), seconds >= 0 {
            return min(seconds, maxRetryAfter)
        }
        let exponential = min(maxDelay, baseDelay * Double(1 << min(max(attempt - 1, 0), 20)))
        return exponential / 2 + exponential / 2 * min(max(random, 0), 1)
    }
}
