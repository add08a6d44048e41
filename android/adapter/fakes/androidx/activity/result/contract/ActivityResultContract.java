package androidx.activity.result.contract;

/** Fake of the AndroidX contract. */
public abstract class ActivityResultContract<I, O> {}
