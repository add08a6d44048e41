package androidx.work;
public final class OneTimeWorkRequest {
    public static final class Builder {
        public Builder(Class<? extends ListenableWorker> workerClass) {}
        public Builder setConstraints(Constraints constraints) { return this; }
        public OneTimeWorkRequest build() { return null; }
    }
}
