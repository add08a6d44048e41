package android.content;

import android.content.pm.PackageManager;

import java.io.File;
import java.util.HashMap;
import java.util.Map;

import dev.pushledger.fakes.Api;

/** Fake: an application's context with its no-backup directory, package and system services. */
public class Context {
    private static final String PACKAGE = "com.example.shop";
    private final Context application;
    private final File noBackupFilesDir;
    private final Map<Class<?>, Object> services;
    private final PackageManager packageManager;

    /** The application context of a fake app installed at {@code noBackupFilesDir}. */
    public Context(File noBackupFilesDir, String versionName) {
        application = null;
        this.noBackupFilesDir = noBackupFilesDir;
        services = new HashMap<>();
        packageManager = new PackageManager(PACKAGE, versionName);
    }

    /** A component (activity) of {@code application}. */
    protected Context(Context application) {
        this.application = application;
        noBackupFilesDir = application.noBackupFilesDir;
        services = application.services;
        packageManager = application.packageManager;
    }

    public Context getApplicationContext() { return application == null ? this : application; }

    public File getNoBackupFilesDir() {
        Api.since(21, "Context.getNoBackupFilesDir");
        return noBackupFilesDir;
    }

    public String getPackageName() { return PACKAGE; }

    public PackageManager getPackageManager() { return packageManager; }

    public <T> T getSystemService(Class<T> serviceClass) {
        Api.since(23, "Context.getSystemService(Class)");
        return serviceClass.cast(services.get(serviceClass));
    }

    /** Installs a system service the fake device offers. */
    public <T> T fakeService(Class<T> type, T service) {
        services.put(type, service);
        return service;
    }
}
