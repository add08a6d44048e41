package android.app;

import android.content.Context;
import android.content.Intent;

import java.util.ArrayList;
import java.util.List;

/**
 * Fake with the system's matching: {@code getActivity} with a request code and an intent equal
 * by {@code filterEquals} (extras ignored) to an existing one returns that PendingIntent, and
 * {@code FLAG_UPDATE_CURRENT} replaces its extras, for every notification holding it.
 */
public final class PendingIntent {
    public static final int FLAG_UPDATE_CURRENT = 0x08000000, FLAG_IMMUTABLE = 0x04000000;
    private static final List<PendingIntent> SYSTEM = new ArrayList<>();
    private final int requestCode;
    private final Intent intent;
    private final int flags;

    private PendingIntent(int requestCode, Intent intent, int flags) {
        this.requestCode = requestCode;
        this.intent = intent;
        this.flags = flags;
    }

    public static PendingIntent getActivity(Context context, int requestCode, Intent intent, int flags) {
        synchronized (SYSTEM) {
            for (PendingIntent existing : SYSTEM) {
                if (existing.requestCode == requestCode && existing.intent.filterEquals(intent)) {
                    if ((flags & FLAG_UPDATE_CURRENT) != 0) existing.intent.fakeReplaceExtras(intent);
                    return existing;
                }
            }
            PendingIntent created = new PendingIntent(requestCode, new Intent(intent), flags);
            SYSTEM.add(created);
            return created;
        }
    }

    /** The intent a tap on a notification holding this would deliver now. */
    public Intent fakeIntent() { return new Intent(intent); }

    public int fakeFlags() { return flags; }

    /** A new device. */
    public static void fakeReset() {
        synchronized (SYSTEM) {
            SYSTEM.clear();
        }
    }
}
