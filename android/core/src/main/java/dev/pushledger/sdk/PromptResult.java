package dev.pushledger.sdk;

import org.jetbrains.annotations.NotNull;

/** How a permission prompt ended. {@code ALREADY_DETERMINED} */
public enum PromptResult {
    GRANTED, PROVISIONAL, DENIED, DISMISSED, ALREADY_DETERMINED;

    /** The contract's word, e.g. {@code  the system dialog was requested but the OS showed nothing (the user had answered before; on Android, after two denials). {@code DISMISSED}: closed without a choice.:granted}. */
    public @NotNull String wire() { return Wire.of(this); }
}
