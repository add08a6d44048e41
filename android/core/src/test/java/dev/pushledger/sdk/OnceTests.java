package dev.pushledger.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.File;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** Events recorded once per fact: the push token once a day or on a change, an open once per notification. */
class OnceTests {
    private final Fixtures.Log log = new Fixtures.Log();

    @Test
    void theTokenIsRecordedWhenItChangesOrOnceADay() throws Exception {
        AtomicLong clock = new AtomicLong(1_764_496_805_120L);
        File directory = Fixtures.directory();
        PushLedger ledger = new PushLedger(Fixtures.config("http://127.0.0.1:9", Fixtures.KEY, directory,
                log).clock(clock::get).build());
        assertNotNull(ledger.recordTokenIfDue(PushProvider.FCM, "token-one"), "the first start with the SDK");
        PushLedger nextLaunch = new PushLedger(Fixtures.config("http://127.0.0.1:9", Fixtures.KEY, directory,
                log).clock(clock::get).build());
        assertNull(nextLaunch.recordTokenIfDue(PushProvider.FCM, "token-one"), "the same token the same day");
        clock.addAndGet(PushLedger.TOKEN_REFRESH_MILLIS - 1);
        assertNull(nextLaunch.recordTokenIfDue(PushProvider.FCM, "token-one"));
        clock.addAndGet(1);
        assertNotNull(nextLaunch.recordTokenIfDue(PushProvider.FCM, "token-one"), "again a day later");
        assertNotNull(nextLaunch.recordTokenIfDue(PushProvider.FCM, "token-two"), "a new token at once");
        assertEquals(3, ledger.pendingCount());
        String state = new String(java.nio.file.Files.readAllBytes(new File(new File(directory, "PushLedger"),
                "token-recorded").toPath()),
            java.nio.charset.StandardCharsets.UTF_8);
        assertFalse(state.contains("token-two"), "only a digest of the token is kept");
    }

    @Test
    void anOpenIsRecordedOncePerNotification() throws Exception {
        PushLedger ledger = Fixtures.ledger("http://127.0.0.1:9", Fixtures.directory(), log);
        Map<String, String> data = new HashMap<>();
        data.put("notification_id", UUID.randomUUID().toString());
        NotificationPayload payload = NotificationPayload.from(data);
        assertNotNull(ledger.recordOpen(payload, "default", Landing.TARGET));
        assertNull(ledger.recordOpen(payload, "default", Landing.TARGET),
                "the activity recreated with the same intent");
        data.put("notification_id", UUID.randomUUID().toString());
        assertNotNull(ledger.recordOpen(NotificationPayload.from(data), "default", null), "another notification");
        assertEquals(2, ledger.pendingCount());
    }
}
