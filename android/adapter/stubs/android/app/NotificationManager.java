package android.app;
public class NotificationManager {
    public java.util.List<NotificationChannel> getNotificationChannels() { return null; }
    public java.util.List<NotificationChannelGroup> getNotificationChannelGroups() { return null; }
    public NotificationChannel getNotificationChannel(String channelId) { return null; }
    public NotificationChannelGroup getNotificationChannelGroup(String channelGroupId) { return null; }
}
