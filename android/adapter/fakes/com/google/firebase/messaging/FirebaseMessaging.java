package com.google.firebase.messaging;

import com.google.android.gms.tasks.OnCompleteListener;
import com.google.android.gms.tasks.Task;

import java.util.ArrayList;
import java.util.List;

/** Fake: the app's current registration token, handed out asynchronously; counts the requests. */
public final class FirebaseMessaging {
    private static final FirebaseMessaging INSTANCE = new FirebaseMessaging();
    /** The token Firebase holds for this install (null: it fails to get one). */
    public static volatile String fakeToken;
    public static volatile int fakeRequests;
    private static final List<Runnable> UNDELIVERED = new ArrayList<>();

    private FirebaseMessaging() {}

    public static FirebaseMessaging getInstance() { return INSTANCE; }

    public Task<String> getToken() {
        fakeRequests++;
        final String token = fakeToken;
        return new Task<String>() {
            @Override
            public boolean isSuccessful() { return token != null; }

            @Override
            public String getResult() { return token; }

            @Override
            public Task<String> addOnCompleteListener(final OnCompleteListener<String> listener) {
                final Task<String> self = this;
                synchronized (UNDELIVERED) {
                    UNDELIVERED.add(new Runnable() {
                        @Override
                        public void run() { listener.onComplete(self); }
                    });
                }
                return this;
            }
        };
    }

    /** Firebase answers every pending request (on the main thread in the real library). */
    public static void fakeComplete() {
        List<Runnable> due;
        synchronized (UNDELIVERED) {
            due = new ArrayList<>(UNDELIVERED);
            UNDELIVERED.clear();
        }
        for (Runnable r : due) r.run();
    }

    public static void fakeReset() {
        fakeToken = null;
        fakeRequests = 0;
        synchronized (UNDELIVERED) {
            UNDELIVERED.clear();
        }
    }
}
