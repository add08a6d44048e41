package androidx.work;

/** Fake of the AndroidX enum. */
public enum ExistingWorkPolicy { REPLACE, KEEP, APPEND, APPEND_OR_REPLACE }
