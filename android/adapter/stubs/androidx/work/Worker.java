package androidx.work;
public abstract class Worker extends ListenableWorker {
    public Worker(android.content.Context context, WorkerParameters workerParams) { super(context, workerParams); }
    public abstract Result doWork();
}
