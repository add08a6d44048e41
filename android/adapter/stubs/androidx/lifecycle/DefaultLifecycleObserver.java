package androidx.lifecycle;
public interface DefaultLifecycleObserver extends LifecycleObserver { default void onStart(LifecycleOwner owner) {} }
