package android.app;
public final class NotificationChannel {
    public String getId() { return null; }
    public int getImportance() { return 0; }
    public String getGroup() { return null; }
}
