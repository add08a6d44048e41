package androidx.lifecycle;

/** Fake: the callback the SDK uses. */
public interface DefaultLifecycleObserver extends LifecycleObserver {
    default void onStart(LifecycleOwner owner) {}
}
