package com.google.android.gms.tasks;

/** Fake: a task that completes when the test says (listeners added after completion run at once). */
public abstract class Task<TResult> {
    public abstract boolean isSuccessful();

    public abstract TResult getResult();

    public abstract Task<TResult> addOnCompleteListener(OnCompleteListener<TResult> listener);
}
