package android.app;
public class Activity extends android.content.Context {
    public android.content.Context getApplicationContext() { return null; }
    public <T> T getSystemService(Class<T> serviceClass) { return null; }
    public java.io.File getNoBackupFilesDir() { return null; }
    public android.content.pm.PackageManager getPackageManager() { return null; }
    public String getPackageName() { return null; }
}
