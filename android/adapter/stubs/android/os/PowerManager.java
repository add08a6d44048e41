package android.os;
public final class PowerManager { public boolean isIgnoringBatteryOptimizations(String packageName) { return false; } }
