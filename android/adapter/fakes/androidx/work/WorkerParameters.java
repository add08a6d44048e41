package androidx.work;

/** Fake: the run attempt. */
public final class WorkerParameters {
    final int runAttemptCount;

    WorkerParameters(int runAttemptCount) { this.runAttemptCount = runAttemptCount; }
}
