package dev.pushledger.sdk;

import org.jetbrains.annotations.NotNull;

/** The push service a token belongs to. */
public enum PushProvider {
    APNS, FCM;

    /** The contract's word, e.g. {@code fcm}. */
    public @NotNull String wire() { return Wire.of(this); }
}
