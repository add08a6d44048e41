package android.system;

/** Fake of the platform's errno exception. */
public final class ErrnoException extends Exception {
    private static final long serialVersionUID = 1L;

    public ErrnoException(String functionName, int errno) { super(functionName + " failed: errno " + errno); }
}
