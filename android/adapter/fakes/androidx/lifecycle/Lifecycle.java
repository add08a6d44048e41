package androidx.lifecycle;

import java.util.ArrayList;
import java.util.List;

/** Fake: started or not; an observer added while started gets {@code onStart} at once, as in AndroidX. */
public final class Lifecycle {
    private final LifecycleOwner owner;
    private final List<LifecycleObserver> observers = new ArrayList<>();
    private boolean started;

    Lifecycle(LifecycleOwner owner) { this.owner = owner; }

    public void addObserver(LifecycleObserver observer) {
        observers.add(observer);
        if (started && observer instanceof DefaultLifecycleObserver) {
            ((DefaultLifecycleObserver) observer).onStart(owner);
        }
    }

    void moveTo(boolean start) {
        boolean was = started;
        started = start;
        if (start && !was) {
            for (LifecycleObserver o : new ArrayList<>(observers)) {
                if (o instanceof DefaultLifecycleObserver) ((DefaultLifecycleObserver) o).onStart(owner);
            }
        }
    }

    void clear() {
        observers.clear();
        started = false;
    }
}
