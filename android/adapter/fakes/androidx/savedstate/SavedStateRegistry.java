package androidx.savedstate;

import android.os.Bundle;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/** Fake: what an activity saves for its next instance (after a rotation or the process's death). */
public final class SavedStateRegistry {
    /** Gives the state to save. */
    public interface SavedStateProvider {
        Bundle saveState();
    }

    private final Map<String, Bundle> restored;
    private final Map<String, SavedStateProvider> providers = new LinkedHashMap<>();

    public SavedStateRegistry(Map<String, Bundle> restored) {
        this.restored = restored == null ? new HashMap<String, Bundle>() : new HashMap<>(restored);
    }

    public Bundle consumeRestoredStateForKey(String key) { return restored.remove(key); }

    public void registerSavedStateProvider(String key, SavedStateProvider provider) {
        if (providers.containsKey(key)) {
            throw new IllegalArgumentException("SavedStateProvider with the given key is already registered");
        }
        providers.put(key, provider);
    }

    /** What {@code onSaveInstanceState} keeps. */
    public Map<String, Bundle> fakeSave() {
        Map<String, Bundle> saved = new HashMap<>();
        for (Map.Entry<String, SavedStateProvider> p : providers.entrySet()) saved.put(p.getKey(),
                p.getValue().saveState());
        return saved;
    }
}
