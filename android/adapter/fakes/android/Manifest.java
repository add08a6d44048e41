package android;

/** Fake: the permission the SDK asks for. */
public final class Manifest {
    private Manifest() {}

    public static final class permission {
        public static final String POST_NOTIFICATIONS = "android.permission.POST_NOTIFICATIONS";

        private permission() {}
    }
}
