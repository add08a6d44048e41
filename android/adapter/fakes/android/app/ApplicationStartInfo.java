package android.app;

import dev.pushledger.fakes.Api;

/** Fake: one process start. */
public final class ApplicationStartInfo {
    private final boolean forceStopped;

    public ApplicationStartInfo(boolean forceStopped) { this.forceStopped = forceStopped; }

    public boolean wasForceStopped() {
        Api.since(35, "ApplicationStartInfo.wasForceStopped");
        return forceStopped;
    }
}
