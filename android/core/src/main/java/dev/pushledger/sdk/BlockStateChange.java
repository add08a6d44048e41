package dev.pushledger.sdk;

import org.jetbrains.annotations.Nullable;

/**
 * The API 28+ broadcasts that tell an app the user blocked or unblocked it, one of its channels
 * or channel groups. They reach the affected app only, also when it is not running; the
 * receiver records a fresh snapshot and schedules an upload, nothing more.
 */
public final class BlockStateChange {
    /** {@code NotificationManager.ACTION_APP_BLOCK_STATE_CHANGED}. */
    public static final String APP = "android.app.action.APP_BLOCK_STATE_CHANGED";
    /** {@code NotificationManager.ACTION_NOTIFICATION_CHANNEL_BLOCK_STATE_CHANGED}. */
    public static final String CHANNEL = "android.app.action.NOTIFICATION_CHANNEL_BLOCK_STATE_CHANGED";
    /** {@code NotificationManager.ACTION_NOTIFICATION_CHANNEL_GROUP_BLOCK_STATE_CHANGED}. */
    public static final String GROUP = "android.app.action.NOTIFICATION_CHANNEL_GROUP_BLOCK_STATE_CHANGED";

    private BlockStateChange() {}

    /** Whether an intent's action is one of the three (anything else is ignored). */
    public static boolean isBlockStateAction(@Nullable String action) {
        return APP.equals(action) || CHANNEL.equals(action) || GROUP.equals(action);
    }
}
