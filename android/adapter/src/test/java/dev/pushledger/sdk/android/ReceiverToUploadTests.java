package dev.pushledger.sdk.android;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import android.app.ApplicationStartInfo;
import android.content.Intent;
import android.system.Os;

import androidx.work.BackoffPolicy;
import androidx.work.NetworkType;
import androidx.work.WorkManager;

import java.util.List;

import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.pushledger.fakes.Device;

/**
 * The real adapter on a fake phone at each API level that changes what it reads: a block-state
 * broadcast journals a snapshot with what that level offers, schedules an upload, and the
 * upload delivers it. A member used below its level throws as on a device.
 */
class ReceiverToUploadTests {
    @ParameterizedTest
    @ValueSource(ints = {21, 26, 28, 33, 35})
    void aBlockBroadcastJournalsASnapshotThatTheScheduledUploadDelivers(int sdk) throws Exception {
        FakeApp phone = new FakeApp(sdk);
        if (sdk >= 26) phone.createChannels();
        phone.activity.fakeStarts.add(new ApplicationStartInfo(true));
        phone.activity.fakeBackgroundRestricted = true;
        phone.power.fakeIgnoring = true;
        phone.usage.fakeBucket = 40;
        Device.postNotificationsGranted = true;
        phone.start();
        List<JSONObject> atStart = phone.journal("notification_settings");
        assertEquals(1, atStart.size(), "the process start's snapshot");
        assertEquals(sdk >= 35 ? Boolean.TRUE : null, atStart.get(0).opt("force_stopped_before_start"));

        if (sdk >= 26) phone.notifications.getNotificationChannel("orders").fakeUserSetsImportance(0);
        Device.notificationsEnabled = false;
        BlockStateReceiver receiver = new BlockStateReceiver();
        receiver.onReceive(phone.app, new Intent("android.app.action.APP_BLOCK_STATE_CHANGED"));
        FakeApp.idle();
        assertTrue(receiver.fakePendingResult().fakeFinished(), "goAsync's result finished");
        List<JSONObject> snapshots = phone.journal("notification_settings");
        assertEquals(2, snapshots.size());
        JSONObject s = snapshots.get(1);
        assertFalse(s.getBoolean("notifications_enabled"));
        assertEquals(sdk >= 33 ? "granted" : "not_required", s.getString("post_notifications"));
        assertNull(s.opt("force_stopped_before_start"), "only the first snapshot of a process carries it");
        if (sdk < 26) {
            assertFalse(s.has("channels"), "no channels below API 26");
        } else {
            JSONArray channels = s.getJSONArray("channels");
            assertEquals("orders:0,promotions:0,friends:3", channels.getJSONObject(0).getString("id") + ":"
                    + channels.getJSONObject(0).getInt("importance")
                + "," + channels.getJSONObject(1).getString("id") + ":" + channels.getJSONObject(1).getInt("importance")
                + "," + channels.getJSONObject(2).getString("id") + ":"
                + channels.getJSONObject(2).getInt("importance"));
            assertEquals("social", channels.getJSONObject(2).getString("group"));
            assertEquals(sdk >= 28 ? Boolean.FALSE : null, channels.getJSONObject(2).opt("group_blocked"),
                    "a group's blocked state from API 28");
        }
        assertEquals(sdk >= 28 ? "rare" : null, s.opt("standby_bucket"));
        assertEquals(sdk >= 28 ? Boolean.TRUE : null, s.opt("background_restricted"));
        assertEquals(sdk >= 23 ? Boolean.TRUE : null, s.opt("ignoring_battery_optimizations"));

        assertEquals(1, phone.uploadsWaiting(), "one upload waits for both snapshots");
        WorkManager.Work work = WorkManager.getInstance(phone.app).fakeChain(UploadWorker.UNIQUE_NAME).get(0);
        assertEquals(NetworkType.CONNECTED, work.request.constraints.networkType);
        assertEquals(BackoffPolicy.EXPONENTIAL, work.request.backoffPolicy);
        assertEquals(30_000, work.request.backoffMillis);
        assertEquals(sdk >= 31, work.request.expedited != null,
                "expedited from API 31 only (below it needs a foreground notification)");
        WorkManager.fakeConnected = false;
        assertNull(phone.runUpload(), "not without a network");
        WorkManager.fakeConnected = true;
        assertEquals(WorkManager.State.SUCCEEDED, phone.runUpload().state);
        assertEquals(2, phone.sent().size());
        assertEquals(0, phone.journal().size());
        JSONObject body = phone.bodies.get(0);
        assertEquals(sdk, body.getInt("sdk_int"));
        assertEquals("5.2.0", body.getString("app_version"));
        assertNotNull(phone.requests.get(0).headers.get("X-PushLedger-SDK"));
        assertEquals(sdk < 26, Os.FSYNCS.get() > 0, "directory fsync through android.system.Os below API 26 only");
    }
}
