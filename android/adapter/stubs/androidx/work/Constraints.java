package androidx.work;
public final class Constraints {
    public static final class Builder {
        public Builder setRequiredNetworkType(NetworkType networkType) { return this; }
        public Constraints build() { return null; }
    }
}
