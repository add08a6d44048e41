package dev.pushledger.sdk.android;

import android.content.Context;
import android.content.pm.PackageManager;
import android.os.Build;
import android.os.SystemClock;
import android.util.Log;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;
import androidx.lifecycle.DefaultLifecycleObserver;
import androidx.lifecycle.LifecycleOwner;
import androidx.lifecycle.ProcessLifecycleOwner;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.pushledger.sdk.HttpUrlConnectionTransport;
import dev.pushledger.sdk.PushLedger;
import dev.pushledger.sdk.PushLedgerConfig;
import dev.pushledger.sdk.PushLedgerEvent;
import dev.pushledger.sdk.PushLedgerException;
import dev.pushledger.sdk.PushLedgerLogger;
import dev.pushledger.sdk.PushLedgerTransport;
import dev.pushledger.sdk.PushProvider;
import dev.pushledger.sdk.RetryPolicy;

/**
 * The Android adapter's entry point: one ledger per process on no-backup storage, a settings
 * snapshot when the process starts (whatever started it: an activity, FCM, a receiver, a job)
 * and on every later return to the foreground, the FCM token asked for at start, uploads
 * through WorkManager. Call {@link #start} from {@code Application.onCreate()}; every other
 * class of this package uses {@link #ledger}.
 */
public final class PushLedgerAndroid {
    private static final String TAG = "PushLedger";
    /**
     * A return to the foreground this soon after the process-start snapshot takes none: an app
     * launched by the user starts its process and comes to the foreground at once.
     */
    static final long FOREGROUND_AFTER_START_MILLIS = 5_000;
    private static final ExecutorService IO_THREAD = Executors.newSingleThreadExecutor();
    /**
     * The SDK's I/O thread: journal writes (fsync) stay off the main thread, in order. A task's
     * unexpected exception is logged, never thrown at the app (on Android it would end the process).
     */
    static final Executor IO = new Executor() {
        @Override
        public void execute(final Runnable task) {
            IO_THREAD.execute(new Runnable() {
                @Override
                public void run() {
                    try {
                        task.run();
                    } catch (RuntimeException | LinkageError e) {
                        Log.println(Log.ERROR, TAG, "SDK task failed: " + e);
                    }
                }
            });
        }
    };
    private static volatile PushLedger ledger;
    private static volatile Settings settings;
    private static volatile long lastSnapshotAt = Long.MIN_VALUE;

    /** What {@link #start} needs besides the context. */
    public static final class Settings {
        final String appId, baseUrl, telemetryKey;
        PushLedgerTransport transport = new HttpUrlConnectionTransport();

        public Settings(@NonNull String appId, @NonNull String baseUrl, @NonNull String telemetryKey) {
            this.appId = appId;
            this.baseUrl = baseUrl;
            this.telemetryKey = telemetryKey;
        }

        /** The HTTP client ({@code HttpURLConnection} unless set), e.g. OkHttp behind a {@link PushLedgerTransport}. */
        public @NonNull Settings transport(@NonNull PushLedgerTransport value) {
            transport = value;
            return this;
        }
    }

    private PushLedgerAndroid() {}

    /**
     * Records a snapshot now (the process started, whatever started it), asks Firebase for the
     * current token, and records a snapshot on every later return to the foreground; each
     * schedules an upload. Main thread, from {@code Application.onCreate()}: the disk work runs
     * on the SDK's I/O thread.
     */
    public static void start(@NonNull Context context, @NonNull Settings settings) {
        final Context app = context.getApplicationContext();
        PushLedgerAndroid.settings = settings;
        recordSnapshot(app);
        FirebaseTokens.refresh(app);
        ProcessLifecycleOwner.get().getLifecycle().addObserver(new DefaultLifecycleObserver() {
            @Override
            public void onStart(@NonNull LifecycleOwner owner) {
                if (SystemClock.elapsedRealtime() - lastSnapshotAt >= FOREGROUND_AFTER_START_MILLIS) {
                    recordSnapshot(app);
                }
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
            .transport(s.transport)
            // One attempt per run: WorkManager retries the worker with its backoff, instead of a worker sleeping
            // (job quotas count the time a job runs).
            .retry(new RetryPolicy(1, 500, 30_000, 60_000))
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
        lastSnapshotAt = SystemClock.elapsedRealtime();
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
        if (event != null) recordWithInBackground(context, of(event));
    }

    /**
     * Journals {@code event} on the calling thread (durable when this returns: use it from
     * {@code onMessageReceived}, whose process may end right after) and schedules an upload;
     * failures are logged, never thrown at the app. Nothing is recorded while disabled.
     */
    public static void record(@NonNull final Context context, @Nullable final PushLedgerEvent event) {
        if (event != null) recordWith(context, of(event));
    }

    /** One way of recording into the ledger; null from it: nothing was recorded. */
    interface Recording {
        @Nullable Object record(@NonNull PushLedger ledger) throws PushLedgerException;
    }

    private static Recording of(final PushLedgerEvent event) {
        return new Recording() {
            @Override
            public Object record(PushLedger ledger) throws PushLedgerException {
                return ledger.record(event);
            }
        };
    }

    /** The FCM token, when it changed or a day has passed ({@link PushLedger#recordTokenIfDue}). */
    static Recording fcmToken(final String token) {
        return new Recording() {
            @Override
            public Object record(PushLedger ledger) throws PushLedgerException {
                return ledger.recordTokenIfDue(PushProvider.FCM, token);
            }
        };
    }

    /** {@link #recordWith} on the SDK's I/O thread. */
    static void recordWithInBackground(@NonNull final Context context, @NonNull final Recording recording) {
        IO.execute(new Runnable() {
            @Override
            public void run() {
                recordWith(context, recording);
            }
        });
    }

    /** Runs {@code recording}, logs a failure, and schedules an upload when something was recorded. */
    static void recordWith(@NonNull Context context, @NonNull Recording recording) {
        Object recorded;
        try {
            recorded = recording.record(ledger(context));
        } catch (PushLedgerException e) {
            Log.w(TAG, "event not recorded (" + e.code() + "): " + e.getMessage());
            return;
        }
        if (recorded != null) UploadWorker.schedule(context);
    }

    /**
     * The consent switch, kept on disk for every process and later launch: false records and
     * uploads nothing from now on; {@code clearQueue} also deletes what is journalled and not yet
     * uploaded. On the SDK's I/O thread; true resumes both (and uploads what was kept).
     */
    public static void setEnabled(@NonNull final Context context, final boolean enabled, final boolean clearQueue) {
        IO.execute(new Runnable() {
            @Override
            public void run() {
                try {
                    PushLedger l = ledger(context);
                    l.setEnabled(enabled);
                    if (clearQueue) l.clearPending();
                    if (enabled) UploadWorker.schedule(context);
                } catch (PushLedgerException e) {
                    Log.w(TAG, "consent switch not applied (" + e.code() + "): " + e.getMessage());
                }
            }
        });
    }

    /** For tests: as if the process had just started (the files, like WorkManager's queue, stay). */
    static void resetProcess() {
        ledger = null;
        settings = null;
        lastSnapshotAt = Long.MIN_VALUE;
        UploadWorker.resetProcess();
    }
}
