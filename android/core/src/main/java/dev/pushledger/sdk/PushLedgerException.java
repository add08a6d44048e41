package dev.pushledger.sdk;

import org.jetbrains.annotations.NotNull;

/**
 * What went wrong, as a value. {@link #code()} is the contract's error code when {@code record}
 * refused an event ({@code missing_field}, {@code invalid_field}, {@code too_large},
 * {@code too_old}, {@code in_future}), else {@code invalid_configuration}, {@code storage} or
 * {@code flush_incomplete}. The message is safe to log: never the key, never a token.
 */
public class PushLedgerException extends Exception {
    private static final long serialVersionUID = 1L;
    private final @NotNull String code;

    public PushLedgerException(@NotNull String code, @NotNull String message) {
        super(message);
        this.code = code;
    }

    public PushLedgerException(@NotNull String code, @NotNull String message, @NotNull Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public @NotNull String code() { return code; }
}
