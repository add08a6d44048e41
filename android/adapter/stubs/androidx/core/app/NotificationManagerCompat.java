package androidx.core.app;
public final class NotificationManagerCompat {
    public static NotificationManagerCompat from(android.content.Context context) { return null; }
    public boolean areNotificationsEnabled() { return false; }
}
