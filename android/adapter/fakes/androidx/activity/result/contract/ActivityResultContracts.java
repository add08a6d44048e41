package androidx.activity.result.contract;

/** Fake: the contract the SDK uses. */
public final class ActivityResultContracts {
    private ActivityResultContracts() {}

    /** Fake of the permission request contract. */
    public static final class RequestPermission extends ActivityResultContract<String, Boolean> {}
}
