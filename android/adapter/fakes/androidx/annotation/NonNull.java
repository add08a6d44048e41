package androidx.annotation;

/** Fake of the AndroidX annotation. */
@java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.CLASS)
public @interface NonNull {}
