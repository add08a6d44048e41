package androidx.activity.result;

/** Fake of the AndroidX launcher. */
public abstract class ActivityResultLauncher<I> {
    public abstract void launch(I input);
}
