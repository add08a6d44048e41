package android.app;

import java.util.ArrayList;
import java.util.List;

import dev.pushledger.fakes.Api;

/** Fake: background restriction and the recorded process starts. */
public final class ActivityManager {
    public boolean fakeBackgroundRestricted;
    public final List<ApplicationStartInfo> fakeStarts = new ArrayList<>();

    public boolean isBackgroundRestricted() {
        Api.since(28, "ActivityManager.isBackgroundRestricted");
        return fakeBackgroundRestricted;
    }

    public List<ApplicationStartInfo> getHistoricalProcessStartReasons(int maxNum) {
        Api.since(35, "ActivityManager.getHistoricalProcessStartReasons");
        return new ArrayList<>(fakeStarts.subList(0, Math.min(maxNum, fakeStarts.size())));
    }
}
