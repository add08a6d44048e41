package android.content.pm;

/** Fake: the version name the SDK reads. */
public class PackageInfo {
    public String versionName;
}
