package dev.pushledger.sdk;

import org.jetbrains.annotations.NotNull;

/**
 * The server's request limits (the contract's defaults unless the server was configured lower):
 * batches stay within them, and {@code record} refuses what they would refuse.
 */
public final class IngestLimits {
    public final int maxBodyBytes;
    public final int maxEventsPerRequest;
    public final int maxEventBytes;
    /** Events older than this before the receive time are {@code too_old}. */
    public final long maxAgeMillis;
    /** Events later than this after the receive time are {@code in_future}. */
    public final long maxFutureMillis;

    public IngestLimits(int maxBodyBytes, int maxEventsPerRequest, int maxEventBytes, long maxAgeMillis, long maxFutureMillis) {
        this.maxBodyBytes = maxBodyBytes;
        this.maxEventsPerRequest = maxEventsPerRequest;
        this.maxEventBytes = maxEventBytes;
        this.maxAgeMillis = maxAgeMillis;
        this.maxFutureMillis = maxFutureMillis;
    }

    /** 1 MiB per request, 2,000 events per request, 32 KiB per event, 30 days back, 1 day ahead. */
    public static @NotNull IngestLimits defaults() {
        return new IngestLimits(1 << 20, 2_000, 32 << 10, 30L * 86_400_000, 86_400_000);
    }
}
