package android.app;
public final class ApplicationStartInfo { public boolean wasForceStopped() { return false; } }
