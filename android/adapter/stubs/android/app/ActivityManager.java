package android.app;
public class ActivityManager {
    public boolean isBackgroundRestricted() { return false; }
    public java.util.List<ApplicationStartInfo> getHistoricalProcessStartReasons(int maxNum) { return null; }
}
