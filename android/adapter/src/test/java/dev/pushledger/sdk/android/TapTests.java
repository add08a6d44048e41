package dev.pushledger.sdk.android;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import android.app.PendingIntent;
import android.content.Intent;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.pushledger.sdk.Landing;

/** A tap records the notification it was on, once. */
class TapTests {
    private static Map<String, String> push(UUID id) {
        Map<String, String> data = new HashMap<>();
        data.put("notification_id", id.toString());
        data.put("link", "https://shop.example.com/orders/" + id);
        return data;
    }

    @Test
    void eachNotificationsContentIntentKeepsItsOwnId() throws Exception {
        FakeApp phone = new FakeApp(34);
        UUID older = UUID.randomUUID(), newer = UUID.randomUUID();
        PendingIntent first = PushLedgerMessaging.contentIntent(phone.app, new Intent("open_order"), push(older));
        PendingIntent second = PushLedgerMessaging.contentIntent(phone.app, new Intent("open_order"), push(newer));
        assertNotSame(first, second);
        assertEquals(older.toString(), first.fakeIntent().getStringExtra("notification_id"),
                "a tap on the older one records the older id");
        assertEquals(newer.toString(), second.fakeIntent().getStringExtra("notification_id"));
        assertNotEquals(0, first.fakeFlags() & PendingIntent.FLAG_IMMUTABLE);

        // The fake does what Android does with one request code and FLAG_UPDATE_CURRENT (the guide's earlier snippet).
        PendingIntent a = PendingIntent.getActivity(phone.app, 0,
                PushLedgerMessaging.putPayload(new Intent("open_order"), push(older)),
            PendingIntent.FLAG_IMMUTABLE | PendingIntent.FLAG_UPDATE_CURRENT);
        PendingIntent.getActivity(phone.app, 0, PushLedgerMessaging.putPayload(new Intent("open_order"), push(newer)),
            PendingIntent.FLAG_IMMUTABLE | PendingIntent.FLAG_UPDATE_CURRENT);
        assertEquals(newer.toString(), a.fakeIntent().getStringExtra("notification_id"),
                "the older notification now carries the newest id");
    }

    @Test
    void anOpenIsRecordedOnceThroughRecreationAndRecents() throws Exception {
        FakeApp phone = new FakeApp(34);
        phone.start();
        UUID id = UUID.randomUUID();
        Intent tap = PushLedgerMessaging.contentIntent(phone.app, new Intent("open_order"), push(id)).fakeIntent();
        PushLedgerMessaging.onNotificationOpened(phone.app, tap, "default", Landing.TARGET);
        PushLedgerMessaging.onNotificationOpened(phone.app, tap, "default", Landing.TARGET); // rotated: onCreate again
        phone.newProcess();
        phone.start();
        PushLedgerMessaging.onNotificationOpened(phone.app, tap, "default",
                Landing.TARGET); // restored after the process died
        PushLedgerMessaging.onNotificationOpened(phone.app,
                new Intent(tap).addFlags(Intent.FLAG_ACTIVITY_LAUNCHED_FROM_HISTORY),
            "default", Landing.TARGET);
        FakeApp.idle();
        assertEquals(1, phone.journal("notification_opened").size());
        Intent other = PushLedgerMessaging.contentIntent(phone.app, new Intent("open_order"),
                push(UUID.randomUUID())).fakeIntent();
        PushLedgerMessaging.onNotificationOpened(phone.app, other, "default", Landing.FALLBACK);
        FakeApp.idle();
        assertEquals(2, phone.journal("notification_opened").size());
    }
}
