package dev.pushledger.sdk;

import org.jetbrains.annotations.NotNull;

/** The APNs environment of an APNs token (iOS only; FCM tokens have none). */
public enum ApnsEnvironment {
    PRODUCTION, SANDBOX;

    /** The contract's word, e.g. {@code production}. */
    public @NotNull String wire() { return Wire.of(this); }
}
