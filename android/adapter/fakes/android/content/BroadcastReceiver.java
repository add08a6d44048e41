package android.content;

/** Fake: a receiver whose {@code goAsync()} result the test can check. */
public abstract class BroadcastReceiver {
    private PendingResult pending;

    public abstract void onReceive(Context context, Intent intent);

    public final PendingResult goAsync() {
        pending = new PendingResult();
        return pending;
    }

    /** The result of the last {@code goAsync()}, or null. */
    public final PendingResult fakePendingResult() { return pending; }

    /** Fake: finished or not. */
    public static class PendingResult {
        private volatile boolean finished;

        public final void finish() {
            if (finished) throw new IllegalStateException("Broadcast already finished");
            finished = true;
        }

        public boolean fakeFinished() { return finished; }
    }
}
