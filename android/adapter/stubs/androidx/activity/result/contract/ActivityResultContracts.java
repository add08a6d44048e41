package androidx.activity.result.contract;
public final class ActivityResultContracts {
    public static final class RequestPermission extends ActivityResultContract<String, Boolean> {}
}
