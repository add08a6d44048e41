package android.system;
public final class Os {
    public static java.io.FileDescriptor open(String path, int flags, int mode) throws ErrnoException { return null; }
    public static void fsync(java.io.FileDescriptor fd) throws ErrnoException {}
    public static void close(java.io.FileDescriptor fd) throws ErrnoException {}
}
