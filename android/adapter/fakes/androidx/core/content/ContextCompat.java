package androidx.core.content;

import android.content.Context;
import android.content.pm.PackageManager;

import dev.pushledger.fakes.Device;

/** Fake: POST_NOTIFICATIONS as the dialog left it. */
public final class ContextCompat {
    private ContextCompat() {}

    public static int checkSelfPermission(Context context, String permission) {
        return Device.postNotificationsGranted ? PackageManager.PERMISSION_GRANTED : PackageManager.PERMISSION_DENIED;
    }
}
