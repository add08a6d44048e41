package dev.pushledger.sdk;

import org.jetbrains.annotations.NotNull;

/** Where a tap took the user */
public enum Landing {
    TARGET, FALLBACK, REJECTED;

    /** The contract's word, e.g. {@code  the screen the link names ({@code target}), somewhere else such as the home screen ({@code fallback}), or nowhere because the app refused the link as malformed ({@code rejected}).:target}. */
    public @NotNull String wire() { return Wire.of(this); }
}
