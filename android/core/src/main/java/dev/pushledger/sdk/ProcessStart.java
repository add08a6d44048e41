package dev.pushledger.sdk;

import java.util.concurrent.atomic.AtomicBoolean;

import org.jetbrains.annotations.Nullable;

/**
 * {@code force_stopped_before_start} belongs on the first snapshot after the process started
 * only: {@code ApplicationStartInfo} keeps answering for the same start, and later snapshots
 * of the process would repeat a stale fact.
 */
public final class ProcessStart {
    private static final AtomicBoolean TAKEN = new AtomicBoolean(false);

    private ProcessStart() {}

    /** {@code wasForceStopped} the first time in this process; null every later time. */
    public static @Nullable Boolean forceStoppedOnce(@Nullable Boolean wasForceStopped) {
        return TAKEN.compareAndSet(false, true) ? wasForceStopped : null;
    }

    /** For tests: as if the process had just started. */
    static void reset() { TAKEN.set(false); }
}
