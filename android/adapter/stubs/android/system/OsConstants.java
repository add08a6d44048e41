package android.system;
public final class OsConstants { public static int O_RDONLY; }
