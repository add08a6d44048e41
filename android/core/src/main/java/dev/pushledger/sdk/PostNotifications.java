package dev.pushledger.sdk;

import org.jetbrains.annotations.NotNull;

/** The runtime {@code POST_NOTIFICATIONS} permission state (a runtime permission from API 33). */
public enum PostNotifications {
    GRANTED, DENIED, NOT_REQUIRED;

    /** The state for a device at {@code sdkInt} whose permission check said {@code granted}. */
    public static @NotNull PostNotifications of(int sdkInt, boolean granted) {
        if (sdkInt < 33) return NOT_REQUIRED;
        return granted ? GRANTED : DENIED;
    }

    /** The contract's word: {@code granted}, {@code denied}, {@code not_required}. */
    public @NotNull String wire() { return Wire.of(this); }
}
