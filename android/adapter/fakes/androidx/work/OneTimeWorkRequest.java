package androidx.work;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

/** Fake: what a request asks of WorkManager. */
public final class OneTimeWorkRequest {
    public final UUID id = UUID.randomUUID();
    public final Class<? extends ListenableWorker> workerClass;
    public final Constraints constraints;
    public final BackoffPolicy backoffPolicy;
    public final long backoffMillis;
    public final OutOfQuotaPolicy expedited;

    private OneTimeWorkRequest(Builder b) {
        workerClass = b.workerClass;
        constraints = b.constraints;
        backoffPolicy = b.backoffPolicy;
        backoffMillis = b.backoffMillis;
        expedited = b.expedited;
    }

    /** Fake of the AndroidX builder, with its checks. */
    public static final class Builder {
        private final Class<? extends ListenableWorker> workerClass;
        private Constraints constraints = new Constraints.Builder().build();
        private BackoffPolicy backoffPolicy = BackoffPolicy.EXPONENTIAL;
        private long backoffMillis = 30_000;
        private OutOfQuotaPolicy expedited;

        public Builder(Class<? extends ListenableWorker> workerClass) { this.workerClass = workerClass; }

        public Builder setConstraints(Constraints value) {
            constraints = value;
            return this;
        }

        /** As in AndroidX: clamped to 10 s … 5 h. */
        public Builder setBackoffCriteria(BackoffPolicy policy, long backoffDelay, TimeUnit timeUnit) {
            backoffPolicy = policy;
            backoffMillis = Math.max(10_000, Math.min(timeUnit.toMillis(backoffDelay), 5 * 3_600_000L));
            return this;
        }

        public Builder setExpedited(OutOfQuotaPolicy policy) {
            expedited = policy;
            return this;
        }

        public OneTimeWorkRequest build() { return new OneTimeWorkRequest(this); }
    }
}
