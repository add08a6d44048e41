package android.app.usage;

import dev.pushledger.fakes.Api;

/** Fake: the standby bucket. */
public final class UsageStatsManager {
    public int fakeBucket = 10;

    public int getAppStandbyBucket() {
        Api.since(28, "UsageStatsManager.getAppStandbyBucket");
        return fakeBucket;
    }
}
