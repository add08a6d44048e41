package dev.pushledger.sdk.android;

import android.Manifest;
import android.content.Context;
import android.content.pm.PackageManager;
import android.os.Build;
import android.os.Bundle;
import android.os.Handler;
import android.os.Looper;
import android.os.SystemClock;
import android.util.Log;

import androidx.activity.ComponentActivity;
import androidx.activity.result.ActivityResultCallback;
import androidx.activity.result.ActivityResultLauncher;
import androidx.activity.result.contract.ActivityResultContracts;
import androidx.annotation.NonNull;
import androidx.annotation.Nullable;
import androidx.core.app.ActivityCompat;
import androidx.core.content.ContextCompat;
import androidx.savedstate.SavedStateRegistry;

import java.io.File;
import java.io.IOException;

import dev.pushledger.sdk.PermissionRequest;
import dev.pushledger.sdk.PromptKind;
import dev.pushledger.sdk.PromptResult;
import dev.pushledger.sdk.PushLedgerEvent;

/**
 * The {@code POST_NOTIFICATIONS} request, recorded with its placement and how it ended
 * ({@link PermissionRequest} holds the rules). Create it in the activity's {@code onCreate},
 * every time (activity results must be registered before the activity starts; one prompt per
 * activity), then call {@link #request(String)} where the journey asks. A request in flight
 * survives a rotation and the process's death under the dialog: its state is in the activity's
 * saved state, and the answer goes to the prompt the recreated activity made. Disk work runs on
 * the SDK's I/O thread; the callback comes on the main thread.
 */
public final class PermissionPrompt {
    /** The app's own continuation, with the recorded result. */
    public interface Callback { void onResult(@NonNull PromptResult result); }

    static final String STATE_KEY = "dev.pushledger.sdk.android.PermissionPrompt";
    private static final String PLACEMENT = "placement", RATIONALE_BEFORE = "rationale_before",
            STARTED_AT = "started_at";

    private final ComponentActivity activity;
    private final Context app;
    private final File storage;
    private final ActivityResultLauncher<String> launcher;
    /** The request in flight, as saved: null when none. */
    private @Nullable String placement;
    private boolean rationaleBefore;
    private long startedAt;

    public PermissionPrompt(@NonNull ComponentActivity activity, @NonNull final Callback callback) {
        this.activity = activity;
        app = activity.getApplicationContext();
        storage = activity.getNoBackupFilesDir();
        SavedStateRegistry registry = activity.getSavedStateRegistry();
        Bundle saved = registry.consumeRestoredStateForKey(STATE_KEY);
        if (saved != null && saved.containsKey(PLACEMENT)) {
            placement = saved.getString(PLACEMENT);
            rationaleBefore = saved.getBoolean(RATIONALE_BEFORE);
            startedAt = saved.getLong(STARTED_AT);
        }
        registry.registerSavedStateProvider(STATE_KEY, new SavedStateRegistry.SavedStateProvider() {
            @Override
            public @NonNull Bundle saveState() {
                Bundle state = new Bundle();
                if (placement != null) {
                    state.putString(PLACEMENT, placement);
                    state.putBoolean(RATIONALE_BEFORE, rationaleBefore);
                    state.putLong(STARTED_AT, startedAt);
                }
                return state;
            }
        });
        launcher = activity.registerForActivityResult(new ActivityResultContracts.RequestPermission(), new ActivityResultCallback<Boolean>() {
            @Override
            public void onActivityResult(Boolean granted) {
                answered(Boolean.TRUE.equals(granted), callback);
            }
        });
    }

    /** Shows the system dialog (when the OS will) and records the outcome under {@code placement}, a slug. */
    public void request(@NonNull String placement) {
        boolean granted = Build.VERSION.SDK_INT < 33
            || ContextCompat.checkSelfPermission(activity, Manifest.permission.POST_NOTIFICATIONS) == PackageManager.PERMISSION_GRANTED;
        if (granted) {
            // Granted already, or below API 33 where there is no runtime permission: the OS shows nothing.
            PromptResult result = PermissionRequest.result(Build.VERSION.SDK_INT, true, false,
                new PermissionRequest.History(0, false), true, false, 0);
            PushLedgerAndroid.recordInBackground(app, PushLedgerEvent.permissionPrompt(placement, PromptKind.SYSTEM, result));
            return;
        }
        this.placement = placement;
        rationaleBefore = rationale();
        startedAt = SystemClock.elapsedRealtime();
        PushLedgerAndroid.IO.execute(new Runnable() {
            @Override
            public void run() {
                try {
                    PermissionRequest.requested(storage);
                } catch (IOException e) {
                    // Without the count a later silent answer is judged by the timing rule alone: reported, not lost.
                    Log.w("PushLedger", "permission request not counted: " + e.getMessage());
                }
            }
        });
        launcher.launch(Manifest.permission.POST_NOTIFICATIONS);
    }

    /** The answer, on the main thread: what only the main thread can read, then the rest on the I/O thread. */
    private void answered(final boolean granted, final Callback callback) {
        final String where = placement;
        if (where == null) return; // an answer to no request of this prompt
        final boolean before = rationaleBefore, after = rationale();
        final long elapsed = SystemClock.elapsedRealtime() - startedAt;
        placement = null;
        final Handler main = new Handler(Looper.getMainLooper());
        PushLedgerAndroid.IO.execute(new Runnable() {
            @Override
            public void run() {
                final PromptResult result = PermissionRequest.result(Build.VERSION.SDK_INT, false, before,
                    PermissionRequest.history(storage), granted, after, elapsed);
                try {
                    PermissionRequest.answered(storage, result, before, after);
                } catch (IOException e) {
                    Log.w("PushLedger", "permission answer not kept: " + e.getMessage());
                }
                PushLedgerAndroid.record(app, PushLedgerEvent.permissionPrompt(where, PromptKind.SYSTEM, result));
                main.post(new Runnable() {
                    @Override
                    public void run() {
                        callback.onResult(result);
                    }
                });
            }
        });
    }

    private boolean rationale() {
        return Build.VERSION.SDK_INT >= 33 && ActivityCompat.shouldShowRequestPermissionRationale(activity, Manifest.permission.POST_NOTIFICATIONS);
    }
}
