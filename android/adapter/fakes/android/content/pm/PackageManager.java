package android.content.pm;

/** Fake: this app's package only. */
public class PackageManager {
    public static final int PERMISSION_GRANTED = 0, PERMISSION_DENIED = -1;
    private final String packageName, versionName;

    public PackageManager(String packageName, String versionName) {
        this.packageName = packageName;
        this.versionName = versionName;
    }

    public PackageInfo getPackageInfo(String name, int flags) throws NameNotFoundException {
        if (!packageName.equals(name)) throw new NameNotFoundException(name);
        PackageInfo info = new PackageInfo();
        info.versionName = versionName;
        return info;
    }

    /** Fake of the platform's exception. */
    public static class NameNotFoundException extends Exception {
        private static final long serialVersionUID = 1L;

        public NameNotFoundException(String name) { super(name); }
    }
}
