package androidx.core.app;
public class ActivityCompat extends androidx.core.content.ContextCompat {
    public static boolean shouldShowRequestPermissionRationale(android.app.Activity activity, String permission) { return false; }
}
