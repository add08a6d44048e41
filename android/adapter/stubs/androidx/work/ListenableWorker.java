package androidx.work;
public abstract class ListenableWorker {
    public ListenableWorker(android.content.Context appContext, WorkerParameters workerParams) {}
    public final android.content.Context getApplicationContext() { return null; }
    public abstract static class Result {
        public static Result success() { return null; }
        public static Result retry() { return null; }
        public static Result failure() { return null; }
    }
}
