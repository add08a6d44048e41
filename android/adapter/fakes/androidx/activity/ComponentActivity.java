package androidx.activity;

import android.app.Activity;
import android.content.Context;
import android.os.Bundle;

import androidx.activity.result.ActivityResultCallback;
import androidx.activity.result.ActivityResultLauncher;
import androidx.activity.result.contract.ActivityResultContract;
import androidx.activity.result.contract.ActivityResultContracts;
import androidx.savedstate.SavedStateRegistry;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.pushledger.fakes.Device;

/**
 * Fake: results are keyed by registration order, as the real registry does, so a recreated
 * activity that registers in the same order gets the answer to a request its predecessor made.
 */
public class ComponentActivity extends Activity {
    private final SavedStateRegistry registry;
    private final List<ActivityResultCallback<?>> callbacks = new ArrayList<>();

    public ComponentActivity(Context application) { this(application, null); }

    private ComponentActivity(Context application, Map<String, Bundle> saved) {
        super(application);
        registry = new SavedStateRegistry(saved);
    }

    public final SavedStateRegistry getSavedStateRegistry() { return registry; }

    public final <I, O> ActivityResultLauncher<I> registerForActivityResult(final ActivityResultContract<I, O> contract,
            ActivityResultCallback<O> callback) {
        final int index = callbacks.size();
        callbacks.add(callback);
        return new ActivityResultLauncher<I>() {
            @Override
            public void launch(I input) {
                if (!(contract instanceof ActivityResultContracts.RequestPermission)) {
                    throw new UnsupportedOperationException("the fake launches permission requests only");
                }
                Device.launchPermission(ComponentActivity.this, index);
            }
        };
    }

    /**
     * The activity destroyed and created again with its saved state (a rotation, or the process
     * killed under the dialog and restored): the caller makes its components in the new one.
     */
    public ComponentActivity fakeRecreate() {
        ComponentActivity next = new ComponentActivity(getApplicationContext(), registry.fakeSave());
        Device.recreated(this, next);
        return next;
    }

    /** The system delivers an answer to the callback registered {@code index}th. */
    @SuppressWarnings("unchecked")
    public void fakeDeliver(int index, Object result) {
        if (index >= callbacks.size()) {
            throw new IllegalStateException("no callback registered for the answer: it is lost");
        }
        ((ActivityResultCallback<Object>) callbacks.get(index)).onActivityResult(result);
    }
}
