package dev.pushledger.sdk.android;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import android.os.SystemClock;
import android.util.Log;

import androidx.lifecycle.ProcessLifecycleOwner;

import com.google.firebase.messaging.FirebaseMessaging;
import com.google.firebase.messaging.RemoteMessage;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.json.JSONObject;
import org.junit.jupiter.api.Test;

/** What a process start records, whatever started it: a snapshot, and the token of an install from before the SDK. */
class StartTests {
    @Test
    void fcmStartingTheProcessInTheBackgroundRecordsASnapshotAndTheReceipt() throws Exception {
        FakeApp phone = new FakeApp(34);
        phone.createChannels();
        phone.start(); // Application.onCreate for FCM's service: no activity, the process stays in the background
        assertEquals(1, phone.journal("notification_settings").size(), "a snapshot without any activity");
        Map<String, String> data = new HashMap<>();
        data.put("notification_id", UUID.randomUUID().toString());
        PushLedgerMessaging.onMessageReceived(phone.app, new RemoteMessage(data), "promotions");
        List<JSONObject> receipts = phone.journal("notification_received");
        assertEquals(1, receipts.size(), "journalled before onMessageReceived returns");
        assertFalse(receipts.get(0).getBoolean("displayed"), "the user blocked promotions");
        assertEquals(1, phone.uploadsWaiting());
    }

    @Test
    void aLaunchByTheUserTakesOneSnapshotAndEachLaterForegroundAnother() throws Exception {
        FakeApp phone = new FakeApp(35);
        phone.start();
        ProcessLifecycleOwner.fakeForeground(true);
        FakeApp.idle();
        assertEquals(1, phone.journal("notification_settings").size(),
                "the start and its first foreground are one moment");
        ProcessLifecycleOwner.fakeForeground(false);
        SystemClock.fakeAdvance(60_000);
        ProcessLifecycleOwner.fakeForeground(true);
        FakeApp.idle();
        assertEquals(2, phone.journal("notification_settings").size(), "back to the foreground a minute later");
    }

    @Test
    void anInstallFromBeforeTheSdkRegistersItsTokenAtStartOnceADay() throws Exception {
        FakeApp phone = new FakeApp(33);
        FirebaseMessaging.fakeToken = "fcm-token:APA91b_existing_install_0123456789";
        phone.start();
        assertEquals(1, FirebaseMessaging.fakeRequests, "the adapter asks Firebase at start");
        FirebaseMessaging.fakeComplete();
        FakeApp.idle();
        List<JSONObject> tokens = phone.journal("push_token");
        assertEquals(1, tokens.size());
        assertEquals("fcm-token:APA91b_existing_install_0123456789", tokens.get(0).getString("token"));
        assertEquals("fcm", tokens.get(0).getString("provider"));

        phone.newProcess();
        phone.start();
        FirebaseMessaging.fakeComplete();
        FakeApp.idle();
        assertEquals(2, FirebaseMessaging.fakeRequests);
        assertEquals(1, phone.journal("push_token").size(), "the same token the same day is not recorded again");

        PushLedgerMessaging.onNewToken(phone.app, "fcm-token:APA91b_rotated");
        assertEquals(2, phone.journal("push_token").size(), "a new token at once");
        synchronized (Log.LINES) {
            for (String line : Log.LINES) assertFalse(line.contains("APA91b"), "no token in the log: " + line);
        }
    }

    @Test
    void withoutAFirebaseTokenNothingIsRecordedAndNothingFails() throws Exception {
        FakeApp phone = new FakeApp(33);
        FirebaseMessaging.fakeToken = null;
        phone.start();
        FirebaseMessaging.fakeComplete();
        FakeApp.idle();
        assertTrue(phone.journal("push_token").isEmpty());
        assertEquals(1, phone.journal("notification_settings").size());
    }
}
