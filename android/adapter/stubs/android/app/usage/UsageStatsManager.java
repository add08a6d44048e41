package android.app.usage;
public final class UsageStatsManager { public int getAppStandbyBucket() { return 0; } }
