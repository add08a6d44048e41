package androidx.lifecycle;
public abstract class Lifecycle { public abstract void addObserver(LifecycleObserver observer); }
