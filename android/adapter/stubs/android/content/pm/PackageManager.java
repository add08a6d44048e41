package android.content.pm;
public abstract class PackageManager {
    public static final int PERMISSION_GRANTED = 0;
    public static class NameNotFoundException extends Exception { private static final long serialVersionUID = 1L; }
    public abstract PackageInfo getPackageInfo(String packageName, int flags) throws NameNotFoundException;
}
