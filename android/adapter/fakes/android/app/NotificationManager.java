package android.app;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.pushledger.fakes.Api;

/** Fake: the channels and groups the app created, in creation order. */
public final class NotificationManager {
    public static final int IMPORTANCE_NONE = 0, IMPORTANCE_DEFAULT = 3, IMPORTANCE_HIGH = 4;
    private final Map<String, NotificationChannel> channels = new LinkedHashMap<>();
    private final Map<String, NotificationChannelGroup> groups = new LinkedHashMap<>();

    public void createNotificationChannel(NotificationChannel channel) {
        Api.since(26, "NotificationManager.createNotificationChannel");
        channels.put(channel.getId(), channel);
    }

    public void createNotificationChannelGroup(NotificationChannelGroup group) {
        Api.since(26, "NotificationManager.createNotificationChannelGroup");
        groups.put(group.getId(), group);
    }

    public List<NotificationChannel> getNotificationChannels() {
        Api.since(26, "NotificationManager.getNotificationChannels");
        return new ArrayList<>(channels.values());
    }

    public NotificationChannel getNotificationChannel(String channelId) {
        Api.since(26, "NotificationManager.getNotificationChannel");
        return channels.get(channelId);
    }

    public List<NotificationChannelGroup> getNotificationChannelGroups() {
        Api.since(26, "NotificationManager.getNotificationChannelGroups");
        return new ArrayList<>(groups.values());
    }

    public NotificationChannelGroup getNotificationChannelGroup(String groupId) {
        Api.since(28, "NotificationManager.getNotificationChannelGroup");
        return groups.get(groupId);
    }
}
