package dev.pushledger.sdk;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

/** Storage directories, configurations and a captured log for the core's tests. */
final class Fixtures {
    static final String APP = "com.example.shop";
    static final String KEY = "plk_test_secret_key_0123456789";

    private Fixtures() {}

    private static final List<File> CREATED = Collections.synchronizedList(new ArrayList<File>());

    static {
        // Removed when the test run ends: a test's journal may still be open until then.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            synchronized (CREATED) {
                for (File directory : CREATED) delete(directory);
            }
        }));
    }

    static File directory() {
        try {
            File directory = Files.createTempDirectory("pushledger-android-").toFile();
            CREATED.add(directory);
            return directory;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void delete(File file) {
        File[] children = file.listFiles();
        if (children != null) {
            for (File child : children) delete(child);
        }
        file.delete();
    }

    /** The release in the repository's VERSION file (Tests/Fixtures/../../VERSION). */
    static String version() {
        File fixtures = new File(System.getProperty("pushledger.fixtures", "Tests/Fixtures"));
        try {
            return new String(Files.readAllBytes(new File(fixtures.getAbsoluteFile().getParentFile().getParentFile(),
                    "VERSION").toPath()),
                java.nio.charset.StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Fast retries (tests must not sleep through production backoffs). */
    static PushLedgerConfig.Builder config(String baseUrl, String key, File directory, Log log) {
        return PushLedgerConfig.builder(APP, baseUrl, key, directory).appVersion("5.2.0").osVersion("14").sdkInt(34)
            .retry(new RetryPolicy(3, 20, 100, 200)).requestTimeoutMillis(5_000).logger(log);
    }

    static PushLedger ledger(String baseUrl, File directory, Log log) throws PushLedgerException {
        return new PushLedger(config(baseUrl, KEY, directory, log).build());
    }

    /** One valid event of every type, as the guide writes them. */
    static List<PushLedgerEvent> everyType(UUID notification) {
        List<PushLedgerEvent> events = new ArrayList<>();
        events.add(PushLedgerEvent.notificationSettings(AndroidSettings.builder(true).postNotifications(PostNotifications.GRANTED)
            .channel("orders", 4).channel("promotions", 0, "marketing", false).standbyBucket(StandbyBucket.ACTIVE)
            .backgroundRestricted(false).ignoringBatteryOptimizations(true).forceStoppedBeforeStart(false).build()));
        events.add(PushLedgerEvent.permissionPrompt("after_first_order", PromptKind.SYSTEM, PromptResult.GRANTED));
        events.add(PushLedgerEvent.experimentExposure("push_prompt_timing", "after_first_order"));
        events.add(PushLedgerEvent.pushToken(PushProvider.FCM, "fcm-token:APA91b/example_1"));
        events.add(PushLedgerEvent.notificationReceived(notification, "orders", true));
        events.add(PushLedgerEvent.notificationOpened(notification, "default", "https://shop.example.com/orders/42", Landing.TARGET));
        return events;
    }

    /** Log lines the SDK wrote, for checks that rejections are reported and secrets never are. */
    static final class Log implements PushLedgerLogger {
        private final List<String> lines = Collections.synchronizedList(new ArrayList<String>());

        @Override
        public void log(PushLedgerLogger.Level level, String line) { lines.add(line); }

        List<String> lines() {
            synchronized (lines) {
                return new ArrayList<>(lines);
            }
        }

        boolean contains(String text) {
            for (String line : lines()) if (line.contains(text)) return true;
            return false;
        }
    }
}
