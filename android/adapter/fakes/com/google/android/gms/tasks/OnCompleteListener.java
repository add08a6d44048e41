package com.google.android.gms.tasks;

/** Fake of the Play services interface. */
public interface OnCompleteListener<TResult> {
    void onComplete(Task<TResult> task);
}
