package dev.pushledger.sdk;

import org.jetbrains.annotations.NotNull;

/**
 * {@code flush()} returned with events still journalled; they are kept for a later flush. What
 * was uploaded before the failure is in {@link #partial()}.
 */
public final class FlushIncompleteException extends PushLedgerException {
    private static final long serialVersionUID = 1L;
    private final int remaining;
    private final transient @NotNull FlushFailure reason;
    private final transient @NotNull FlushResult partial;

    FlushIncompleteException(int remaining, @NotNull FlushFailure reason, @NotNull FlushResult partial) {
        super("flush_incomplete", remaining + " events still journalled: " + reason);
        this.remaining = remaining;
        this.reason = reason;
        this.partial = partial;
    }

    /** Events of this flush still in the journal. */
    public int remaining() { return remaining; }

    public @NotNull FlushFailure reason() { return reason; }

    public @NotNull FlushResult partial() { return partial; }
}
