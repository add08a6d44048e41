package dev.pushledger.sdk.android;

import android.content.Context;

import androidx.annotation.NonNull;
import androidx.work.Worker;
import androidx.work.WorkerParameters;

import dev.pushledger.sdk.FlushFailure;
import dev.pushledger.sdk.FlushIncompleteException;
import dev.pushledger.sdk.PushLedgerException;

/**
 * Uploads the journal. WorkManager retries with its own backoff when the server is unavailable,
 * the network failed or another process held the journal; a key problem waits for the next
 * scheduled upload (retrying would not help).
 */
public final class UploadWorker extends Worker {
    public UploadWorker(@NonNull Context context, @NonNull WorkerParameters parameters) {
        super(context, parameters);
    }

    @Override
    public @NonNull Result doWork() {
        try {
            PushLedgerAndroid.ledger(getApplicationContext()).flush();
            return Result.success();
        } catch (FlushIncompleteException e) {
            FlushFailure.Kind kind = e.reason().kind;
            boolean transient_ = kind == FlushFailure.Kind.UNAVAILABLE || kind == FlushFailure.Kind.NETWORK || kind == FlushFailure.Kind.BUSY;
            return transient_ ? Result.retry() : Result.failure();
        } catch (PushLedgerException e) {
            return Result.failure();
        }
    }
}
