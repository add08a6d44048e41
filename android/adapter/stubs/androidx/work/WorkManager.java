package androidx.work;
public abstract class WorkManager {
    public static WorkManager getInstance(android.content.Context context) { return null; }
    public abstract Object enqueueUniqueWork(String uniqueWorkName, ExistingWorkPolicy existingWorkPolicy, OneTimeWorkRequest work);
}
