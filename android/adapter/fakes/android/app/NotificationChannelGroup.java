package android.app;

import dev.pushledger.fakes.Api;

/** Fake: a channel group and whether the user blocked it. */
public final class NotificationChannelGroup {
    private final String id;
    private boolean blocked;

    public NotificationChannelGroup(String id, CharSequence name) {
        Api.since(26, "NotificationChannelGroup");
        this.id = id;
    }

    public String getId() { return id; }

    public boolean isBlocked() {
        Api.since(28, "NotificationChannelGroup.isBlocked");
        return blocked;
    }

    public void fakeUserBlocks(boolean value) { blocked = value; }
}
