package androidx.work;

import android.content.Context;

/** Fake of the AndroidX base worker. */
public abstract class ListenableWorker {
    private final Context context;
    private final WorkerParameters parameters;

    public ListenableWorker(Context context, WorkerParameters parameters) {
        this.context = context;
        this.parameters = parameters;
    }

    public final Context getApplicationContext() { return context.getApplicationContext(); }

    public final int getRunAttemptCount() { return parameters.runAttemptCount; }

    /** Fake: a worker's answer. */
    public abstract static class Result {
        Result() {}

        public static Result success() { return new Success(); }

        public static Result retry() { return new Retry(); }

        public static Result failure() { return new Failure(); }

        static final class Success extends Result {}

        static final class Retry extends Result {}

        static final class Failure extends Result {}
    }
}
