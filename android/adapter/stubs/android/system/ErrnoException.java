package android.system;
public final class ErrnoException extends Exception { private static final long serialVersionUID = 1L; }
