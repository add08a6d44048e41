package dev.pushledger.sdk.android;

import android.content.Context;
import android.util.Log;

import androidx.annotation.NonNull;

import com.google.android.gms.tasks.OnCompleteListener;
import com.google.android.gms.tasks.Task;
import com.google.firebase.messaging.FirebaseMessaging;

import dev.pushledger.sdk.PushLedger;

/**
 * The current FCM token, asked for at every start: Firebase calls {@code onNewToken} only when a
 * token is made or changes, so an install that existed before the app added PushLedger would
 * never register. Firebase is the app's own, compile-only for the SDK: this class touches it
 * only after checking it is there.
 */
final class FirebaseTokens {
    private static final String FIREBASE_MESSAGING = "com.google.firebase.messaging.FirebaseMessaging";

    private FirebaseTokens() {}

    /** Whether the app ships Firebase Messaging. */
    static boolean present() {
        try {
            Class.forName(FIREBASE_MESSAGING, false, FirebaseTokens.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Asks for the token and records it when it changed or a day has passed ({@link PushLedger#recordTokenIfDue}). */
    static void refresh(@NonNull final Context app) {
        if (!present()) return;
        Task<String> task;
        try {
            task = FirebaseMessaging.getInstance().getToken();
        } catch (RuntimeException e) {
            // IllegalStateException when the app has not initialised Firebase (no google-services configuration).
            Log.w("PushLedger", "no FCM token: " + e.getClass().getSimpleName());
            return;
        }
        task.addOnCompleteListener(new OnCompleteListener<String>() {
            @Override
            public void onComplete(@NonNull Task<String> done) {
                if (!done.isSuccessful() || done.getResult() == null) return;
                PushLedgerAndroid.recordWithInBackground(app, PushLedgerAndroid.fcmToken(done.getResult()));
            }
        });
    }
}
