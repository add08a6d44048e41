package dev.pushledger.sdk.android;

import android.Manifest;
import android.content.pm.PackageManager;
import android.os.Build;
import android.os.SystemClock;

import androidx.activity.ComponentActivity;
import androidx.activity.result.ActivityResultCallback;
import androidx.activity.result.ActivityResultLauncher;
import androidx.activity.result.contract.ActivityResultContracts;
import androidx.annotation.NonNull;
import androidx.core.app.ActivityCompat;
import androidx.core.content.ContextCompat;

import java.io.IOException;

import dev.pushledger.sdk.PermissionRequest;
import dev.pushledger.sdk.PromptKind;
import dev.pushledger.sdk.PromptResult;
import dev.pushledger.sdk.PushLedgerEvent;

/**
 * The {@code POST_NOTIFICATIONS} request, recorded with its placement and how it ended
 * ({@link PermissionRequest} holds the rules for a dismissal and for the OS showing nothing after
 * two denials). Create it in the activity's {@code onCreate} (activity results must be registered
 * before the activity starts), then call {@link #request(String)} where the journey asks.
 */
public final class PermissionPrompt {
    /** The app's own continuation, with the recorded result. */
    public interface Callback { void onResult(@NonNull PromptResult result); }

    private final ComponentActivity activity;
    private final ActivityResultLauncher<String> launcher;
    private String placement;
    private boolean rationaleBefore, askedBefore;
    private long startedAt;

    public PermissionPrompt(@NonNull final ComponentActivity activity, @NonNull final Callback callback) {
        this.activity = activity;
        launcher = activity.registerForActivityResult(new ActivityResultContracts.RequestPermission(), new ActivityResultCallback<Boolean>() {
            @Override
            public void onActivityResult(Boolean granted) {
                PromptResult result = PermissionRequest.result(Build.VERSION.SDK_INT, false, rationaleBefore, askedBefore,
                    Boolean.TRUE.equals(granted), rationale(), SystemClock.elapsedRealtime() - startedAt);
                PushLedgerAndroid.recordInBackground(activity, PushLedgerEvent.permissionPrompt(placement, PromptKind.SYSTEM, result));
                callback.onResult(result);
            }
        });
    }

    /** Shows the system dialog (when the OS will) and records the outcome under {@code placement}, a slug. */
    public void request(@NonNull String placement) {
        this.placement = placement;
        boolean granted = Build.VERSION.SDK_INT < 33
            || ContextCompat.checkSelfPermission(activity, Manifest.permission.POST_NOTIFICATIONS) == PackageManager.PERMISSION_GRANTED;
        if (granted) {
            // Granted already, or below API 33 where there is no runtime permission: the OS shows nothing.
            PushLedgerAndroid.recordInBackground(activity, PushLedgerEvent.permissionPrompt(placement, PromptKind.SYSTEM,
                PermissionRequest.result(Build.VERSION.SDK_INT, true, false, true, true, false, 0)));
            return;
        }
        rationaleBefore = rationale();
        askedBefore = PermissionRequest.askedBefore(activity.getNoBackupFilesDir());
        try {
            PermissionRequest.markAsked(activity.getNoBackupFilesDir());
        } catch (IOException ignored) {
            // Without the marker a later answer with no dialog reads as a dismissal: reported, not lost.
        }
        startedAt = SystemClock.elapsedRealtime();
        launcher.launch(Manifest.permission.POST_NOTIFICATIONS);
    }

    private boolean rationale() {
        return Build.VERSION.SDK_INT >= 33 && ActivityCompat.shouldShowRequestPermissionRationale(activity, Manifest.permission.POST_NOTIFICATIONS);
    }
}
