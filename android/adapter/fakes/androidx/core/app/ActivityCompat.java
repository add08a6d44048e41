package androidx.core.app;

import android.app.Activity;
import android.os.Build;

import dev.pushledger.fakes.Device;

/** Fake: the rationale flag as the dialog's history sets it (always false below API 23). */
public final class ActivityCompat {
    private ActivityCompat() {}

    public static boolean shouldShowRequestPermissionRationale(Activity activity, String permission) {
        return Build.VERSION.SDK_INT >= 23 && Device.rationale();
    }
}
