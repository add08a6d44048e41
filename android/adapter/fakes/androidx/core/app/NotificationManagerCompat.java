package androidx.core.app;

import android.content.Context;
import android.os.Build;

import dev.pushledger.fakes.Device;

/** Fake: the app switch, which from API 33 is also off while POST_NOTIFICATIONS is not granted. */
public final class NotificationManagerCompat {
    private NotificationManagerCompat() {}

    public static NotificationManagerCompat from(Context context) { return new NotificationManagerCompat(); }

    public boolean areNotificationsEnabled() {
        return Device.notificationsEnabled && (Build.VERSION.SDK_INT < 33 || Device.postNotificationsGranted);
    }
}
