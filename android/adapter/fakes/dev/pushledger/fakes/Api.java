package dev.pushledger.fakes;

import android.os.Build;

/** The level check every fake member makes: a member used below its API level fails as on a device. */
public final class Api {
    private Api() {}

    /** Throws {@link NoSuchMethodError}, as ART does, when the fake device is below {@code level}. */
    public static void since(int level, String member) {
        if (Build.VERSION.SDK_INT < level) {
            throw new NoSuchMethodError(member + " exists from API " + level + "; this device is API "
                    + Build.VERSION.SDK_INT);
        }
    }
}
