package android.os;

/** Fake: posts to its looper's queue. */
public class Handler {
    private final Looper looper;

    public Handler(Looper looper) { this.looper = looper; }

    public final boolean post(Runnable r) {
        looper.enqueue(r);
        return true;
    }
}
