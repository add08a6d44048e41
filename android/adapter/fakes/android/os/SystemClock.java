package android.os;

/** Fake: a clock the tests move. */
public final class SystemClock {
    private static long now = 1_000_000;

    private SystemClock() {}

    public static synchronized long elapsedRealtime() { return now; }

    public static synchronized void fakeAdvance(long millis) { now += millis; }
}
