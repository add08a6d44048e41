package android.os;

/** Fake: the device's level and release, set by each test (final constants on a device). */
public class Build {
    public static class VERSION {
        public static int SDK_INT = 35;
        public static String RELEASE = "15";
    }
}
