package androidx.lifecycle;

/** Fake of the AndroidX interface. */
public interface LifecycleOwner {
    Lifecycle getLifecycle();
}
