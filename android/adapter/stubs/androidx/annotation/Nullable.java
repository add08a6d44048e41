package androidx.annotation;
@java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.CLASS)
public @interface Nullable {}
