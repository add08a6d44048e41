package dev.pushledger.sdk;

/** The core's test hooks, for the adapter's tests (another package). */
public final class CoreAccess {
    private CoreAccess() {}

    /** As if the process had just started. */
    public static void newProcess() { ProcessStart.reset(); }
}
