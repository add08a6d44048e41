package android.app;

import dev.pushledger.fakes.Api;

/** Fake: a channel's id, user-set importance and group. */
public final class NotificationChannel {
    private final String id;
    private int importance;
    private String group;

    public NotificationChannel(String id, CharSequence name, int importance) {
        Api.since(26, "NotificationChannel");
        this.id = id;
        this.importance = importance;
    }

    public String getId() { return id; }

    public int getImportance() { return importance; }

    public String getGroup() { return group; }

    public void setGroup(String groupId) { group = groupId; }

    /** What the user does in the system settings. */
    public void fakeUserSetsImportance(int value) { importance = value; }
}
