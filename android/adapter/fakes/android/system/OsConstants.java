package android.system;

/** Fake: the constant the SDK uses. */
public final class OsConstants {
    public static final int O_RDONLY = 0;

    private OsConstants() {}
}
