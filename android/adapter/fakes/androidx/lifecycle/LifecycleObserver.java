package androidx.lifecycle;

/** Fake of the AndroidX marker interface. */
public interface LifecycleObserver {}
