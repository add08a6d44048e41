package dev.pushledger.sdk.android;

import android.content.Context;
import android.os.Build;
import android.os.SystemClock;

import androidx.annotation.NonNull;
import androidx.work.BackoffPolicy;
import androidx.work.Constraints;
import androidx.work.ExistingWorkPolicy;
import androidx.work.NetworkType;
import androidx.work.OneTimeWorkRequest;
import androidx.work.OutOfQuotaPolicy;
import androidx.work.WorkManager;
import androidx.work.Worker;
import androidx.work.WorkerParameters;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.pushledger.sdk.FlushFailure;
import dev.pushledger.sdk.FlushIncompleteException;
import dev.pushledger.sdk.PushLedgerException;

/**
 * Uploads the journal, one attempt per run. WorkManager retries with its backoff when the
 * server is unavailable or answered something unexpected, the network failed or another
 * process held the journal; a key problem (401/403) waits for the next scheduled upload.
 */
public final class UploadWorker extends Worker {
    static final String UNIQUE_NAME = "pushledger-upload";
    /** WorkManager's exponential backoff from here (its minimum is 10 s), up to its 5 h cap. */
    static final long BACKOFF_SECONDS = 30;
    /**
     * When this process last enqueued an upload that has not started: it will read the journal
     * when it runs, so scheduling another is pointless. Cleared when a run starts (an event
     * recorded during a run appends one upload after it) or fails (its appended successor fails
     * with it); trusted for {@link #PENDING_TRUST_MILLIS} only, in case the app cancelled the work.
     */
    private static final long NONE = Long.MIN_VALUE;
    private static final AtomicLong PENDING_SINCE = new AtomicLong(NONE);
    static final long PENDING_TRUST_MILLIS = 15 * 60_000L;

    public UploadWorker(@NonNull Context context, @NonNull WorkerParameters parameters) {
        super(context, parameters);
    }

    /**
     * Schedules an upload when a network is connected. Unique work, appended after an upload in
     * progress (or replacing a failed one), so an event recorded while one runs is never left
     * for the next record; at most one is waiting per process. Expedited from API 31, where
     * that is a job with a quota; below, WorkManager would need a foreground notification.
     */
    static void schedule(@NonNull Context context) {
        long now = SystemClock.elapsedRealtime(), since = PENDING_SINCE.get();
        if (since != NONE && now - since < PENDING_TRUST_MILLIS) return;
        if (!PENDING_SINCE.compareAndSet(since, now)) return;
        OneTimeWorkRequest.Builder request = new OneTimeWorkRequest.Builder(UploadWorker.class)
            .setConstraints(new Constraints.Builder().setRequiredNetworkType(NetworkType.CONNECTED).build())
            .setBackoffCriteria(BackoffPolicy.EXPONENTIAL, BACKOFF_SECONDS, TimeUnit.SECONDS);
        if (Build.VERSION.SDK_INT >= 31) request.setExpedited(OutOfQuotaPolicy.RUN_AS_NON_EXPEDITED_WORK_REQUEST);
        WorkManager.getInstance(context.getApplicationContext())
            .enqueueUniqueWork(UNIQUE_NAME, ExistingWorkPolicy.APPEND_OR_REPLACE, request.build());
    }

    @Override
    public @NonNull Result doWork() {
        PENDING_SINCE.set(NONE);
        try {
            PushLedgerAndroid.ledger(getApplicationContext()).flush();
            return Result.success();
        } catch (FlushIncompleteException e) {
            if (e.reason().kind != FlushFailure.Kind.UNAUTHORIZED) return Result.retry();
        } catch (PushLedgerException e) {
            // The ledger cannot open (start not called, storage): as for a key problem, the next record schedules
            // again.
        }
        PENDING_SINCE.set(NONE);
        return Result.failure();
    }

    /** For tests: a new process has no upload pending. */
    static void resetProcess() { PENDING_SINCE.set(NONE); }
}
