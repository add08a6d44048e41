package androidx.work;

/** Fake of the AndroidX enum. */
public enum NetworkType { NOT_REQUIRED, CONNECTED, UNMETERED }
