package androidx.work;

import android.content.Context;
import android.os.Build;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Fake with WorkManager's unique-work rules: a chain per name, KEEP ignoring a new request while
 * any of the chain is unfinished (enqueued or running), APPEND adding after the chain (failing
 * with it), APPEND_OR_REPLACE starting a new chain when the old one failed, REPLACE cancelling.
 * The test runs the work ({@link #fakeRunNext}); the queue outlives the app's process, as
 * WorkManager's database does.
 */
public final class WorkManager {
    /** One enqueued request and where it is. */
    public static final class Work {
        public final OneTimeWorkRequest request;
        public State state = State.ENQUEUED;
        public int runAttemptCount;
        /** The backoff WorkManager would wait before the next attempt, after a retry. */
        public long nextDelayMillis;

        Work(OneTimeWorkRequest request) { this.request = request; }
    }

    /** The states the fake models. */
    public enum State { ENQUEUED, BLOCKED, RUNNING, SUCCEEDED, FAILED, CANCELLED }

    private static final WorkManager INSTANCE = new WorkManager();
    private final Map<String, List<Work>> chains = new HashMap<>();
    /** The device has a connected network. */
    public static volatile boolean fakeConnected = true;

    private WorkManager() {}

    public static WorkManager getInstance(Context context) { return INSTANCE; }

    public synchronized Operation enqueueUniqueWork(String name, ExistingWorkPolicy policy, OneTimeWorkRequest work) {
        List<Work> chain = chains.get(name);
        boolean unfinished = false, failed = false;
        if (chain != null) {
            for (Work w : chain) {
                unfinished |= w.state == State.ENQUEUED || w.state == State.BLOCKED || w.state == State.RUNNING;
                failed |= w.state == State.FAILED || w.state == State.CANCELLED;
            }
        }
        Work added = new Work(work);
        if (chain == null || !unfinished && (policy != ExistingWorkPolicy.APPEND || !failed)) {
            chain = new ArrayList<>();
            chains.put(name, chain);
        } else if (policy == ExistingWorkPolicy.KEEP) {
            return new Operation() {};
        } else if (policy == ExistingWorkPolicy.REPLACE) {
            for (Work w : chain) if (w.state != State.SUCCEEDED) w.state = State.CANCELLED;
            chain = new ArrayList<>();
            chains.put(name, chain);
        } else if (policy == ExistingWorkPolicy.APPEND_OR_REPLACE && failed && !unfinished) {
            chain = new ArrayList<>();
            chains.put(name, chain);
        } else {
            // After unfinished work: waits for it. After failed work (APPEND): fails with it, as in AndroidX.
            added.state = unfinished ? State.BLOCKED : State.FAILED;
        }
        chain.add(added);
        return new Operation() {};
    }

    /** Every request ever enqueued under {@code name}, oldest first. */
    public synchronized List<Work> fakeChain(String name) {
        List<Work> chain = chains.get(name);
        return chain == null ? new ArrayList<Work>() : new ArrayList<>(chain);
    }

    /** Requests under {@code name} still to run (enqueued or blocked). */
    public synchronized int fakeWaiting(String name) {
        int n = 0;
        for (Work w : fakeChain(name)) if (w.state == State.ENQUEUED || w.state == State.BLOCKED) n++;
        return n;
    }

    /**
     * Runs the first runnable request under {@code name} (enqueued, its constraint met) in the
     * calling thread; {@code during} runs while it is RUNNING (another thread's record). Returns
     * the work that ran, or null when none could.
     */
    public Work fakeRunNext(Context context, String name, Runnable during) throws Exception {
        Work work = null;
        synchronized (this) {
            for (Work w : fakeChain(name)) {
                if (w.state == State.BLOCKED) break;
                if (w.state == State.ENQUEUED) {
                    work = w;
                    break;
                }
            }
            if (work == null || (work.request.constraints.networkType != NetworkType.NOT_REQUIRED
                    && !fakeConnected)) return null;
            work.state = State.RUNNING;
        }
        Worker worker = (Worker) work.request.workerClass.getConstructor(Context.class, WorkerParameters.class)
            .newInstance(context, new WorkerParameters(work.runAttemptCount));
        if (work.request.expedited != null && Build.VERSION.SDK_INT < 31) worker.getForegroundInfo();
        if (during != null) during.run();
        ListenableWorker.Result result = worker.doWork();
        synchronized (this) {
            List<Work> chain = chains.get(name);
            int at = chain.indexOf(work);
            if (result instanceof ListenableWorker.Result.Success) {
                work.state = State.SUCCEEDED;
                if (at + 1 < chain.size() && chain.get(at + 1).state == State.BLOCKED) chain.get(at
                        + 1).state = State.ENQUEUED;
            } else if (result instanceof ListenableWorker.Result.Retry) {
                work.runAttemptCount++;
                long base = work.request.backoffMillis;
                work.nextDelayMillis = Math.min(5 * 3_600_000L, work.request.backoffPolicy == BackoffPolicy.EXPONENTIAL
                    ? base << Math.min(work.runAttemptCount - 1, 20) : base * work.runAttemptCount);
                work.state = State.ENQUEUED;
            } else {
                for (int i = at; i < chain.size(); i++) chain.get(i).state = State.FAILED;
            }
        }
        return work;
    }

    public synchronized void fakeReset() {
        chains.clear();
        fakeConnected = true;
    }
}
