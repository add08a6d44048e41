package android.app;
public final class NotificationChannelGroup {
    public String getId() { return null; }
    public boolean isBlocked() { return false; }
}
