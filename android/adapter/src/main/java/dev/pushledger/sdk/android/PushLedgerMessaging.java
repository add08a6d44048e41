package dev.pushledger.sdk.android;

import android.app.NotificationChannel;
import android.app.NotificationChannelGroup;
import android.app.NotificationManager;
import android.app.PendingIntent;
import android.content.Context;
import android.content.Intent;
import android.os.Build;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;
import androidx.core.app.NotificationManagerCompat;

import com.google.firebase.messaging.RemoteMessage;

import java.util.HashMap;
import java.util.Map;

import dev.pushledger.sdk.Landing;
import dev.pushledger.sdk.NotificationPayload;
import dev.pushledger.sdk.PushLedger;
import dev.pushledger.sdk.PushLedgerException;
import dev.pushledger.sdk.PushLedgerEvent;

/**
 * Hooks the app calls from its own {@code FirebaseMessagingService} (only one service per app
 * receives messages) and from the activity a tap opens. Receipts need data messages: a
 * notification message to an app in the background goes to the system tray and never reaches
 * {@code onMessageReceived}.
 */
public final class PushLedgerMessaging {
    private PushLedgerMessaging() {}

    /** From {@code onNewToken(String)}: registers the FCM token (journalled when this returns). */
    public static void onNewToken(@NonNull Context context, @NonNull String token) {
        PushLedgerAndroid.recordWith(context, PushLedgerAndroid.fcmToken(token));
    }

    /**
     * From {@code onMessageReceived(RemoteMessage)}, after the app posted (or chose not to post)
     * its notification: records the receipt, with the channel it was posted to and whether that
     * placement can show it now. {@code postedChannel} null: the app did not post one.
     */
    public static void onMessageReceived(@NonNull Context context, @NonNull RemoteMessage message, @Nullable String postedChannel) {
        NotificationPayload payload = NotificationPayload.from(message.getData());
        Boolean displayed = postedChannel == null ? Boolean.FALSE : displayable(context, postedChannel);
        PushLedgerAndroid.record(context, payload.receipt(postedChannel, displayed));
    }

    /** Whether a notification posted to {@code channelId} now is visible: the app, the channel and its group unblocked. */
    static boolean displayable(Context context, String channelId) {
        boolean enabled = NotificationManagerCompat.from(context).areNotificationsEnabled();
        if (Build.VERSION.SDK_INT < 26) return NotificationPayload.displayed(enabled, null, null);
        NotificationManager manager = context.getSystemService(NotificationManager.class);
        NotificationChannel channel = manager.getNotificationChannel(channelId);
        if (channel == null) return false; // a post to a channel the app never created is dropped
        Boolean groupBlocked = null;
        if (channel.getGroup() != null && Build.VERSION.SDK_INT >= 28) {
            NotificationChannelGroup group = manager.getNotificationChannelGroup(channel.getGroup());
            if (group != null) groupBlocked = group.isBlocked();
        }
        return NotificationPayload.displayed(enabled, channel.getImportance(), groupBlocked);
    }

    /**
     * Copies the push's PushLedger fields into the intent of the activity the notification opens
     * (Android 12+: a tap must start an activity directly, no trampoline receiver).
     */
    public static @NonNull Intent putPayload(@NonNull Intent tap, @NonNull Map<String, String> data) {
        for (String key : NotificationPayload.keys()) {
            if (data.get(key) != null) tap.putExtra(key, data.get(key));
        }
        return tap;
    }

    /**
     * The notification's content intent: {@code tap} with the push's fields, as a
     * {@code PendingIntent} of its own. Its request code comes from the notification id, so
     * each notification keeps its own extras (with one request code, {@code FLAG_UPDATE_CURRENT}
     * would give every older notification the newest one's); immutable from API 23.
     */
    public static @NonNull PendingIntent contentIntent(@NonNull Context context, @NonNull Intent tap,
            @NonNull Map<String, String> data) {
        return PendingIntent.getActivity(context, requestCode(NotificationPayload.from(data)), putPayload(tap, data),
            PendingIntent.FLAG_UPDATE_CURRENT | (Build.VERSION.SDK_INT >= 23 ? PendingIntent.FLAG_IMMUTABLE : 0));
    }

    /** A request code per notification: its id's hash (two ids share one with odds of one in four billion). */
    static int requestCode(@NonNull NotificationPayload payload) {
        return payload.notificationId == null ? 0 : payload.notificationId.hashCode();
    }

    /**
     * From the opened activity's {@code onCreate} / {@code onNewIntent}, once the app has routed
     * the tap: {@code action} is {@code default} for the body, else the action's identifier;
     * {@code landed} where the user actually ended up. Also reads a notification message's data,
     * which the system puts in the launcher activity's extras. Records one open per notification:
     * the activity recreated (rotation, process death) or relaunched from Recents with the same
     * intent records nothing more.
     */
    public static void onNotificationOpened(@NonNull final Context context, @NonNull Intent intent,
            @NonNull final String action,
            @Nullable final Landing landed) {
        // Relaunched from Recents: the system hands back the intent of the original tap.
        if ((intent.getFlags() & Intent.FLAG_ACTIVITY_LAUNCHED_FROM_HISTORY) != 0) return;
        Map<String, String> data = new HashMap<>();
        for (String key : NotificationPayload.keys()) {
            String value = intent.getStringExtra(key);
            if (value != null) data.put(key, value);
        }
        final NotificationPayload payload = NotificationPayload.from(data);
        if (payload.notificationId == null) return;
        PushLedgerAndroid.recordWithInBackground(context, new PushLedgerAndroid.Recording() {
            @Override
            public Object record(PushLedger ledger) throws PushLedgerException {
                return ledger.recordOpen(payload, action, landed);
            }
        });
    }
}
