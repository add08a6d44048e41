package dev.pushledger.sdk;

import org.jetbrains.annotations.Nullable;

/**
 * When a flush retries: exponential backoff with "equal jitter" (half fixed, half random),
 * {@code Retry-After} (seconds) honoured up to a cap. The same rule as PushLedgerKit's: both
 * run the rows of Tests/Fixtures/retry-delays.json.
 */
public final class RetryPolicy {
    /** Total attempts per batch, the first included. */
    public final int maxAttempts;
    public final long baseDelayMillis;
    public final long maxDelayMillis;
    public final long maxRetryAfterMillis;

    public RetryPolicy(int maxAttempts, long baseDelayMillis, long maxDelayMillis, long maxRetryAfterMillis) {
        this.maxAttempts = maxAttempts;
        this.baseDelayMillis = baseDelayMillis;
        this.maxDelayMillis = maxDelayMillis;
        this.maxRetryAfterMillis = maxRetryAfterMillis;
    }

    /** 4 attempts, 0.5 s doubling up to 30 s, {@code Retry-After} up to 60 s. */
    public static RetryPolicy defaults() { return new RetryPolicy(4, 500, 30_000, 60_000); }

    /**
     * Milliseconds to wait after failed attempt {@code attempt} (1-based): the server's
     * {@code Retry-After} when it gave a number of seconds, else the jittered exponential.
     */
    public long delayMillis(int attempt, @Nullable String retryAfter, double random) {
        // Seconds as a plain decimal; an HTTP date or anything else falls back to the exponential.
        // (Java's parser alone would also take "7d" or "NaN".)
        String seconds = retryAfter == null ? "" : retryAfter.trim();
        if (seconds.matches("[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
            return Math.round(Math.min(Double.parseDouble(seconds) * 1000, maxRetryAfterMillis));
        }
        double exponential = Math.min(maxDelayMillis, baseDelayMillis * (double) (1L << Math.min(Math.max(attempt - 1, 0), 20)));
        return Math.round(exponential / 2 + exponential / 2 * Math.min(Math.max(random, 0), 1));
    }
}
