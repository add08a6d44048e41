package android.content;
public abstract class Context {
    public abstract Context getApplicationContext();
    public abstract <T> T getSystemService(Class<T> serviceClass);
    public abstract java.io.File getNoBackupFilesDir();
    public abstract android.content.pm.PackageManager getPackageManager();
    public abstract String getPackageName();
}
