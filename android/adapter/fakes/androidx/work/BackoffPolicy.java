package androidx.work;

/** Fake of the AndroidX enum. */
public enum BackoffPolicy { EXPONENTIAL, LINEAR }
