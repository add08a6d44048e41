package dev.pushledger.sdk;

import org.jetbrains.annotations.NotNull;

/** Which permission prompt the app showed */
public enum PromptKind {
    SYSTEM, PRIMER;

    /** The contract's word, e.g. {@code  the OS dialog ({@code system}) or its own pre-permission screen ({@code primer}).:system}. */
    public @NotNull String wire() { return Wire.of(this); }
}
