package dev.pushledger.sample;

import android.app.PendingIntent;
import android.content.Intent;

import androidx.annotation.NonNull;
import androidx.core.app.NotificationCompat;
import androidx.core.app.NotificationManagerCompat;

import com.google.firebase.messaging.FirebaseMessagingService;
import com.google.firebase.messaging.RemoteMessage;

import dev.pushledger.sdk.android.PushLedgerMessaging;

/** The app's one FirebaseMessagingService, calling the SDK's hooks. */
public final class SampleMessagingService extends FirebaseMessagingService {
    @Override
    public void onNewToken(@NonNull String token) {
        PushLedgerMessaging.onNewToken(this, token);
    }

    @Override
    public void onMessageReceived(@NonNull RemoteMessage message) {
        String id = message.getData().get("notification_id");
        // A PendingIntent per notification: a tap on an older one records that one's id.
        PendingIntent tap = PushLedgerMessaging.contentIntent(this, new Intent(this, OrderActivity.class),
                message.getData());
        NotificationManagerCompat manager = NotificationManagerCompat.from(this);
        boolean posted = false;
        if (manager.areNotificationsEnabled()) {
            try {
                manager.notify(id == null ? 0 : id.hashCode(), new NotificationCompat.Builder(this,
                        SampleApplication.ORDERS)
                    .setSmallIcon(android.R.drawable.ic_dialog_info)
                    .setContentTitle("Your order")
                    .setContentText(message.getData().get("link"))
                    .setContentIntent(tap)
                    .setAutoCancel(true)
                    .build());
                posted = true;
            } catch (SecurityException e) {
                // POST_NOTIFICATIONS revoked between the check and the post.
            }
        }
        PushLedgerMessaging.onMessageReceived(this, message, posted ? SampleApplication.ORDERS : null);
    }
}
