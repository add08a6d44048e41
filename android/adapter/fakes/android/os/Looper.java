package android.os;

import java.util.ArrayDeque;
import java.util.Deque;

/** Fake: the main thread's queue, run by the test when it plays the main thread. */
public final class Looper {
    private static final Looper MAIN = new Looper();
    private final Deque<Runnable> queue = new ArrayDeque<>();

    private Looper() {}

    public static Looper getMainLooper() { return MAIN; }

    synchronized void enqueue(Runnable r) { queue.add(r); }

    /** Runs what was posted to the main thread, in order. */
    public static void fakeRunMain() {
        while (true) {
            Runnable next;
            synchronized (MAIN) {
                next = MAIN.queue.poll();
            }
            if (next == null) return;
            next.run();
        }
    }
}
