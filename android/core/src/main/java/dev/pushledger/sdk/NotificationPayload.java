package dev.pushledger.sdk;

import java.util.Map;
import java.util.UUID;

import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

/**
 * The PushLedger fields of a push's data ({@code RemoteMessage.getData()}, or the extras the app
 * copies into the tap's intent): the sender's {@code notification_id} and optional
 * {@code channel} and {@code link}.
 */
public final class NotificationPayload {
    /** Data keys; the contract's field names. */
    public static final String NOTIFICATION_ID = "notification_id", CHANNEL = "channel", LINK = "link";

    /** The three keys, for copying a push's data into a tap's intent and back. */
    public static @NotNull String[] keys() { return new String[] {NOTIFICATION_ID, CHANNEL, LINK}; }

    public final @Nullable UUID notificationId;
    public final @Nullable String channel;
    public final @Nullable String link;

    private NotificationPayload(@Nullable UUID notificationId, @Nullable String channel, @Nullable String link) {
        this.notificationId = notificationId;
        this.channel = channel;
        this.link = link;
    }

    /** Reads the data map; a malformed notification id reads as none. */
    public static @NotNull NotificationPayload from(@NotNull Map<String, String> data) {
        String id = data.get(NOTIFICATION_ID);
        return new NotificationPayload(id == null ? null : FieldReader.uuid(id.trim()), data.get(CHANNEL), data.get(LINK));
    }

    /**
     * The {@code notification_received} event, with the channel the app posted it to
     * ({@code postedChannel}, else the payload's) and whether it was posted visibly; null when the
     * payload carries no notification id (not a push PushLedger's sender tracked).
     */
    public @Nullable PushLedgerEvent receipt(@Nullable String postedChannel, @Nullable Boolean displayed) {
        if (notificationId == null) return null;
        return PushLedgerEvent.notificationReceived(notificationId, postedChannel != null ? postedChannel : channel, displayed);
    }

    /**
     * Whether a notification posted now is where the user can see it: notifications enabled for
     * the app, and its channel neither of importance none nor in a blocked group.
     * {@code channelImportance} null: no channels on this API level (below 26).
     */
    public static boolean displayed(boolean notificationsEnabled, @Nullable Integer channelImportance, @Nullable Boolean groupBlocked) {
        if (!notificationsEnabled || Boolean.TRUE.equals(groupBlocked)) return false;
        return channelImportance == null || channelImportance != 0;
    }

    /**
     * The {@code notification_opened} event for a tap ({@code action}: {@code default} for the
     * body, else the action's identifier) and where the app routed it; null without a notification id.
     */
    public @Nullable PushLedgerEvent open(@NotNull String action, @Nullable Landing landed) {
        if (notificationId == null) return null;
        return PushLedgerEvent.notificationOpened(notificationId, action, link, landed);
    }
}
