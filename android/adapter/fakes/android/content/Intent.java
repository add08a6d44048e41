package android.content;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/** Fake: an explicit intent with string extras and flags. */
public class Intent {
    public static final int FLAG_ACTIVITY_LAUNCHED_FROM_HISTORY = 0x00100000;
    private final String action;
    private final Map<String, String> extras = new HashMap<>();
    private int flags;

    public Intent(String action) { this.action = action; }

    public Intent(Intent other) {
        action = other.action;
        extras.putAll(other.extras);
        flags = other.flags;
    }

    public String getAction() { return action; }

    public Intent putExtra(String name, String value) {
        extras.put(name, value);
        return this;
    }

    public String getStringExtra(String name) { return extras.get(name); }

    public int getFlags() { return flags; }

    public Intent addFlags(int more) {
        flags |= more;
        return this;
    }

    /** As on Android: the same action and target, extras ignored. */
    public boolean filterEquals(Intent other) { return other != null && Objects.equals(action, other.action); }

    /** Replaces the extras (what {@code FLAG_UPDATE_CURRENT} does to an existing PendingIntent's intent). */
    public void fakeReplaceExtras(Intent from) {
        extras.clear();
        extras.putAll(from.extras);
    }
}
