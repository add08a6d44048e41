package androidx.work;

import android.content.Context;

/** Fake of the synchronous worker. */
public abstract class Worker extends ListenableWorker {
    public Worker(Context context, WorkerParameters parameters) { super(context, parameters); }

    public abstract Result doWork();

    /**
     * What WorkManager calls for expedited work below Android 12, where it runs as a foreground
     * service; like AndroidX's default, throws unless the worker provides a notification.
     */
    public Object getForegroundInfo() {
        throw new IllegalStateException(
            "Expedited WorkRequests require a Worker to provide an implementation for getForegroundInfo()");
    }
}
