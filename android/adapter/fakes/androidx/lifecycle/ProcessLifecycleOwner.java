package androidx.lifecycle;

/** Fake: the process comes to the foreground or leaves it when the test says so. */
public final class ProcessLifecycleOwner implements LifecycleOwner {
    private static final ProcessLifecycleOwner INSTANCE = new ProcessLifecycleOwner();
    private final Lifecycle lifecycle = new Lifecycle(this);

    private ProcessLifecycleOwner() {}

    public static LifecycleOwner get() { return INSTANCE; }

    @Override
    public Lifecycle getLifecycle() { return lifecycle; }

    /** The first activity started (true) or the last one stopped (false). */
    public static void fakeForeground(boolean foreground) { INSTANCE.lifecycle.moveTo(foreground); }

    /** A new process: no observer, in the background. */
    public static void fakeNewProcess() { INSTANCE.lifecycle.clear(); }
}
