package android.util;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Fake: keeps every line, so tests can check what the SDK logs (never a key or a full token). */
public final class Log {
    public static final int DEBUG = 3, INFO = 4, WARN = 5, ERROR = 6;
    public static final List<String> LINES = Collections.synchronizedList(new ArrayList<String>());

    private Log() {}

    public static int println(int priority, String tag, String msg) {
        LINES.add(priority + " " + tag + " " + msg);
        return 0;
    }

    public static int w(String tag, String msg) { return println(WARN, tag, msg); }
}
