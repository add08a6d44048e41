package dev.pushledger.sdk.android;

import android.content.Context;
import android.content.pm.PackageManager;
import android.os.Build;
import android.util.Log;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;
import androidx.lifecycle.DefaultLifecycleObserver;
import androidx.lifecycle.LifecycleOwner;
import androidx.lifecycle.ProcessLifecycleOwner;
import androidx.work.Constraints;
import androidx.work.ExistingWorkPolicy;
import androidx.work.NetworkType;
import androidx.work.OneTimeWorkRequest;
import androidx.work.WorkManager;

import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

import dev.pushledger.sdk.PushLedger;
import dev.pushledger.sdk.PushLedgerConfig;
import dev.pushledger.sdk.PushLedgerEvent;
import dev.pushledger.sdk.PushLedgerException;
import dev.pushledger.sdk.PushLedgerLogger;

/**
 * The Android adapter's entry point: one ledger per process on no-backup storage, a settings
 * snapshot at start and on every return to the foreground, uploads through WorkManager. Call
 * {@link #start} from {@code Application.onCreate()}; every other class of this package uses
 * {@link #ledger}.
 */
public final class PushLedgerAndroid {
    private static final String TAG = "PushLedger";
    private static final String UPLOAD_WORK = "pushledger-upload";
    /** Journal writes (fsync) stay off the main thread. */
    static final Executor IO = Executors.newSingleThreadExecutor();
    private static volatile PushLedger ledger;
    private static volatile Settings settings;

    /** What {@link #start} needs besides the context. */
    public static final class Settings {
        final String appId, baseUrl, telemetryKey;

        public Settings(@NonNull String appId, @NonNull String baseUrl, @NonNull String telemetryKey) {
            this.appId = appId;
            this.baseUrl = baseUrl;
            this.telemetryKey = telemetryKey;
        }
    }

    private PushLedgerAndroid() {}

    /**
     * Opens the journal, records a snapshot now (process start) and on every return to the
     * foreground, and schedules an upload after each. Main thread, from {@code Application.onCreate()}.
     */
    public static void start(@NonNull Context context, @NonNull Settings settings) {
        final Context app = context.getApplicationContext();
        PushLedgerAndroid.settings = settings;
        ProcessLifecycleOwner.get().getLifecycle().addObserver(new DefaultLifecycleObserver() {
            @Override
            public void onStart(@NonNull LifecycleOwner owner) {
                recordSnapshot(app);
            }
        });
    }

    /** The process's ledger, opened on first use (also in a receiver or worker started without the app's UI). */
    public static @NonNull PushLedger ledger(@NonNull Context context) throws PushLedgerException {
        PushLedger existing = ledger;
        if (existing != null) return existing;
        synchronized (PushLedgerAndroid.class) {
            if (ledger == null) ledger = new PushLedger(config(context.getApplicationContext()));
            return ledger;
        }
    }

    private static PushLedgerConfig config(Context app) throws PushLedgerException {
        Settings s = settings;
        if (s == null) throw new PushLedgerException("invalid_configuration", "PushLedgerAndroid.start was not called in Application.onCreate");
        PushLedgerConfig.Builder builder = PushLedgerConfig.builder(s.appId, s.baseUrl, s.telemetryKey, app.getNoBackupFilesDir())
            .appVersion(versionName(app)).osVersion(Build.VERSION.RELEASE).sdkInt(Build.VERSION.SDK_INT)
            .logger(new PushLedgerLogger() {
                @Override
                public void log(@NonNull Level level, @NonNull String line) {
                    Log.println(level == Level.ERROR ? Log.ERROR : level == Level.WARNING ? Log.WARN : level == Level.INFO ? Log.INFO : Log.DEBUG, TAG, line);
                }
            });
        if (Build.VERSION.SDK_INT < 26) builder.directorySync(new OsDirectorySync());
        return builder.build();
    }

    private static @Nullable String versionName(Context app) {
        try {
            return app.getPackageManager().getPackageInfo(app.getPackageName(), 0).versionName;
        } catch (PackageManager.NameNotFoundException e) {
            return null;
        }
    }

    /** Reads the settings snapshot and journals it off the main thread, then schedules an upload. */
    public static void recordSnapshot(@NonNull final Context context) {
        IO.execute(new Runnable() {
            @Override
            public void run() {
                record(context, PushLedgerEvent.notificationSettings(SettingsReader.read(context)));
            }
        });
    }


    /**
     * {@link #record} on the SDK's I/O thread, for callers on the main thread (taps, the prompt):
     * the fsyncs stay off it, at the price of a few milliseconds in which a killed process
     * loses the event.
     */
    public static void recordInBackground(@NonNull final Context context, @Nullable final PushLedgerEvent event) {
        IO.execute(new Runnable() {
            @Override
            public void run() {
                record(context, event);
            }
        });
    }

    /**
     * Journals {@code event} on the calling thread (durable when this returns: use it from
     * {@code onMessageReceived}, whose process may end right after) and schedules an upload;
     * failures are logged, never thrown at the app.
     */
    public static void record(@NonNull Context context, @Nullable PushLedgerEvent event) {
        if (event == null) return;
        try {
            ledger(context).record(event);
        } catch (PushLedgerException e) {
            Log.w(TAG, "event not recorded (" + e.code() + "): " + e.getMessage());
            return;
        }
        scheduleUpload(context);
    }

    /** One pending upload at a time, run when a network is connected. */
    public static void scheduleUpload(@NonNull Context context) {
        OneTimeWorkRequest request = new OneTimeWorkRequest.Builder(UploadWorker.class)
            .setConstraints(new Constraints.Builder().setRequiredNetworkType(NetworkType.CONNECTED).build())
            .build();
        WorkManager.getInstance(context.getApplicationContext()).enqueueUniqueWork(UPLOAD_WORK, ExistingWorkPolicy.KEEP, request);
    }
}
