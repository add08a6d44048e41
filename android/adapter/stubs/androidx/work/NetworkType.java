package androidx.work;
public enum NetworkType { NOT_REQUIRED, CONNECTED }
