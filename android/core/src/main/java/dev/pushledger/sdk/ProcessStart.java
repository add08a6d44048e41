package dev.pushledger.sdk;

import java.util.concurrent.atomic.AtomicBoolean;

import org.jetbrains.annotations.Nullable;

/**
 * {@code force_stopped_before_start} belongs on the first snapshot recorded after the process
 * started only: {@code ApplicationStartInfo} keeps answering for the same start, and later
 * snapshots of the process would repeat a stale fact. The fact is used up when a snapshot
 * carrying it is journalled ({@link PushLedger#record}), not when it is read: a snapshot that
 * fails to record leaves it for the next one.
 */
public final class ProcessStart {
    private static final AtomicBoolean RECORDED = new AtomicBoolean(false);

    private ProcessStart() {}

    /** {@code wasForceStopped} until a snapshot carrying it was recorded in this process; null after. */
    public static @Nullable Boolean unrecorded(@Nullable Boolean wasForceStopped) {
        return RECORDED.get() ? null : wasForceStopped;
    }

    /** A snapshot carrying the fact was journalled. */
    static void recorded() { RECORDED.set(true); }

    /** For tests: as if the process had just started. */
    static void reset() { RECORDED.set(false); }
}
