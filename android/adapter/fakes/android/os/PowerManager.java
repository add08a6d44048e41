package android.os;

import dev.pushledger.fakes.Api;

/** Fake: the power allowlist. */
public final class PowerManager {
    public boolean fakeIgnoring;

    public boolean isIgnoringBatteryOptimizations(String packageName) {
        Api.since(23, "PowerManager.isIgnoringBatteryOptimizations");
        return fakeIgnoring;
    }
}
