package dev.pushledger.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import org.json.JSONObject;
import org.junit.jupiter.api.Test;

/** The rules the Android adapter applies, on plain values: the adapter only reads Android objects into them. */
class MappingTests {
    private static JSONObject json(PushLedgerEvent event) throws Exception {
        return new JSONObject(event.json(UUID.randomUUID(), 0));
    }

    @Test
    void postNotificationsIsNotRequiredBelowApi33() {
        assertEquals(PostNotifications.NOT_REQUIRED, PostNotifications.of(32, false));
        assertEquals(PostNotifications.GRANTED, PostNotifications.of(33, true));
        assertEquals(PostNotifications.DENIED, PostNotifications.of(34, false));
    }

    @Test
    void standbyBucketsMapFromTheirConstantsAndUnknownOnesAreLeftOut() {
        assertEquals(StandbyBucket.ACTIVE, StandbyBucket.fromConstant(10));
        assertEquals(StandbyBucket.WORKING_SET, StandbyBucket.fromConstant(20));
        assertEquals(StandbyBucket.FREQUENT, StandbyBucket.fromConstant(30));
        assertEquals(StandbyBucket.RARE, StandbyBucket.fromConstant(40));
        assertEquals(StandbyBucket.RESTRICTED, StandbyBucket.fromConstant(45));
        assertNull(StandbyBucket.fromConstant(5), "STANDBY_BUCKET_EXEMPTED has no contract word");
        assertNull(StandbyBucket.fromConstant(50));
    }

    @Test
    void aSnapshotWritesOnlyWhatWasSetAndIntegersAsIntegers() throws Exception {
        Map<String, Boolean> groups = new HashMap<>();
        groups.put("marketing", true);
        JSONObject o = json(PushLedgerEvent.notificationSettings(AndroidSettings.builder(false).postNotifications(PostNotifications.DENIED)
            .channelInGroups("promotions", 3, "marketing", groups).channelInGroups("orders", 4, "shop", groups)
            .channelInGroups("news", -1000, null, groups).build()));
        assertEquals("{\"id\":\"promotions\",\"importance\":3,\"group\":\"marketing\",\"group_blocked\":true}", o.getJSONArray("channels").get(0).toString());
        assertEquals("{\"id\":\"orders\",\"importance\":4,\"group\":\"shop\"}", o.getJSONArray("channels").get(1).toString());
        assertEquals("{\"id\":\"news\",\"importance\":-1000}", o.getJSONArray("channels").get(2).toString());
        assertFalse(o.has("standby_bucket") || o.has("background_restricted") || o.has("force_stopped_before_start"));
        assertFalse(json(PushLedgerEvent.notificationSettings(AndroidSettings.builder(true).build())).has("channels"));
        assertEquals(0, json(PushLedgerEvent.notificationSettings(AndroidSettings.builder(true).noChannels().build())).getJSONArray("channels").length());
        AndroidSettings blocked = AndroidSettings.builder(true).channel("a", 0).channel("b", 3, "g", true).channel("c", 3).build();
        assertTrue(blocked.channels.get(0).isBlocked() && blocked.channels.get(1).isBlocked() && !blocked.channels.get(2).isBlocked());
    }

    @Test
    void thePermissionRequestRules() {
        PermissionRequest.History first = new PermissionRequest.History(1, false),
                again = new PermissionRequest.History(2, false);
        PermissionRequest.History finalDenial = new PermissionRequest.History(3, true);
        // sdk, granted before, rationale before, history, granted after, rationale after, elapsed ms
        assertEquals(PromptResult.ALREADY_DETERMINED, PermissionRequest.result(32, false, false, first, false, false,
                5));
        assertEquals(PromptResult.ALREADY_DETERMINED, PermissionRequest.result(33, true, false, again, true, false, 5));
        assertEquals(PromptResult.GRANTED, PermissionRequest.result(33, false, false, first, true, false, 2_000));
        assertEquals(PromptResult.DENIED, PermissionRequest.result(33, false, false, first, false, true, 2_000),
                "first denial");
        assertEquals(PromptResult.DISMISSED, PermissionRequest.result(33, false, false, first, false, false, 2_000),
                "first request closed by back");
        assertEquals(PromptResult.DISMISSED, PermissionRequest.result(33, false, false, first, false, false, 300),
            "a quick dismissal of the first request is still one: the OS always shows the first dialog");
        assertEquals(PromptResult.DENIED, PermissionRequest.result(34, false, true, again, false, false, 2_000),
                "second, final denial");
        assertEquals(PromptResult.DISMISSED, PermissionRequest.result(34, false, true, again, false, true, 2_000),
                "second request closed by back");
        assertEquals(PromptResult.ALREADY_DETERMINED, PermissionRequest.result(34, false, false, finalDenial, false,
                false, 4_000),
            "after the final denial nothing shows, however slow the device");
        assertEquals(PromptResult.ALREADY_DETERMINED, PermissionRequest.result(34, false, false, again, false, false,
                900),
            "no history of the final denial: the timing decides");
        assertEquals(PromptResult.DISMISSED, PermissionRequest.result(34, false, false, again, false, false, 3_000),
            "asked before but only dismissed: the dialog showed again and was dismissed again");
    }

    @Test
    void theRequestHistoryLivesInTheStorageDirectory() throws Exception {
        File directory = Fixtures.directory();
        assertEquals(0, PermissionRequest.history(directory).requests);
        PermissionRequest.requested(directory);
        PermissionRequest.answered(directory, PromptResult.DENIED, false, true);
        assertFalse(PermissionRequest.history(directory).finalDenial, "a first denial");
        PermissionRequest.requested(directory);
        PermissionRequest.answered(directory, PromptResult.DENIED, true, false);
        PermissionRequest.History h = PermissionRequest.history(directory);
        assertEquals(2, h.requests);
        assertTrue(h.finalDenial);
        PermissionRequest.answered(directory, PromptResult.GRANTED, false, false);
        assertFalse(PermissionRequest.history(directory).finalDenial, "granted in the settings since");
        File legacy = Fixtures.directory();
        assertTrue(new File(legacy, "PushLedger").mkdirs() && new File(new File(legacy, "PushLedger"),
                "permission-requested").createNewFile());
        assertEquals(1, PermissionRequest.history(legacy).requests,
                "the empty marker of earlier versions is one request");
    }

    @Test
    void aPushsDataGivesReceiptsAndOpens() throws Exception {
        UUID id = UUID.randomUUID();
        Map<String, String> data = new HashMap<>();
        data.put("notification_id", id.toString().toUpperCase());
        data.put("channel", "orders");
        data.put("link", "https://shop.example.com/orders/42");
        NotificationPayload payload = NotificationPayload.from(data);
        JSONObject receipt = json(payload.receipt(null, true));
        assertEquals(id.toString(), receipt.getString("notification_id"));
        assertEquals("orders", receipt.getString("channel"));
        assertEquals("promotions", json(payload.receipt("promotions", null)).getString("channel"), "the channel it was posted to wins");
        JSONObject open = json(payload.open("default", Landing.FALLBACK));
        assertEquals("https://shop.example.com/orders/42", open.getString("link"));
        assertEquals("fallback", open.getString("landed"));
        data.put("notification_id", "not-a-uuid");
        assertNull(NotificationPayload.from(data).receipt(null, null), "a push without a PushLedger id reports nothing");
        assertNull(NotificationPayload.from(new HashMap<String, String>()).open("default", null));
    }

    @Test
    void aPostIsDisplayedOnlyWhereNothingBlocksIt() {
        assertTrue(NotificationPayload.displayed(true, 3, null));
        assertTrue(NotificationPayload.displayed(true, null, null), "below API 26 the app switch decides");
        assertFalse(NotificationPayload.displayed(false, 4, false));
        assertFalse(NotificationPayload.displayed(true, 0, false), "the channel is blocked");
        assertFalse(NotificationPayload.displayed(true, 4, true), "its group is blocked");
    }

    @Test
    void onlyTheThreeBlockStateBroadcastsCount() {
        assertTrue(BlockStateChange.isBlockStateAction("android.app.action.APP_BLOCK_STATE_CHANGED"));
        assertTrue(BlockStateChange.isBlockStateAction("android.app.action.NOTIFICATION_CHANNEL_BLOCK_STATE_CHANGED"));
        assertTrue(BlockStateChange.isBlockStateAction("android.app.action.NOTIFICATION_CHANNEL_GROUP_BLOCK_STATE_CHANGED"));
        assertFalse(BlockStateChange.isBlockStateAction("android.intent.action.BOOT_COMPLETED"));
        assertFalse(BlockStateChange.isBlockStateAction(null));
    }

    @Test
    void theRetryRuleIsPushLedgerKitsRowForRow() throws Exception {
        File file = new File(System.getProperty("pushledger.fixtures", "Tests/Fixtures"), "retry-delays.json");
        JSONObject table = new JSONObject(new String(java.nio.file.Files.readAllBytes(file.toPath()), java.nio.charset.StandardCharsets.UTF_8));
        JSONObject p = table.getJSONObject("policy");
        RetryPolicy policy = new RetryPolicy(4, Math.round(p.getDouble("base_delay_s") * 1000), Math.round(p.getDouble("max_delay_s") * 1000),
            Math.round(p.getDouble("max_retry_after_s") * 1000));
        org.json.JSONArray rows = table.getJSONArray("rows");
        assertTrue(rows.length() >= 10);
        for (int i = 0; i < rows.length(); i++) {
            JSONObject row = rows.getJSONObject(i);
            String retryAfter = row.isNull("retry_after") ? null : row.getString("retry_after");
            assertEquals(Math.round(row.getDouble("delay_s") * 1000), policy.delayMillis(row.getInt("attempt"), retryAfter, row.getDouble("random")),
                row.toString());
        }
        assertEquals(250, policy.delayMillis(1, "7d", 0), "Java's parser alone would read 7 days");
        assertEquals(250, policy.delayMillis(1, "NaN", 0));
    }
}
