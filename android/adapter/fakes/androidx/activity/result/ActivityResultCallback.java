package androidx.activity.result;

/** Fake of the AndroidX interface. */
public interface ActivityResultCallback<O> {
    void onActivityResult(O result);
}
