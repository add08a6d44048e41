package dev.pushledger.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.jupiter.api.Test;

/** Snapshots of apps with many channels, and the process-start fact carried by the first one. */
class SnapshotTests {
    private final Fixtures.Log log = new Fixtures.Log();

    /** {@code count} channels with long ids, every tenth blocked (importance 0), every fifteenth in a blocked group. */
    static AndroidSettings manyChannels(int count) {
        AndroidSettings.Builder b = AndroidSettings.builder(true).postNotifications(PostNotifications.GRANTED);
        for (int i = 0; i < count; i++) {
            String id = "channel_" + i + "_" + ValidationTests.repeat('x', 80);
            if (i % 15 == 7) b.channel(id, 3, "muted_group", true);
            else b.channel(id, i % 10 == 3 ? 0 : 3);
        }
        return b.build();
    }

    @Test
    void aSnapshotOverTheEventLimitKeepsEveryBlockedChannelAndIsStored() throws Exception {
        try (Loopback server = new Loopback((r, n) -> Loopback.Answer.ok(r))) {
            PushLedger ledger = Fixtures.ledger(server.url(), Fixtures.directory(), log);
            AndroidSettings settings = manyChannels(600);
            assertTrue(PushLedgerEvent.notificationSettings(settings).json(java.util.UUID.randomUUID(),
                    0).length() > 32 << 10,
                "the whole list is over 32 KiB");
            assertNotNull(ledger.record(PushLedgerEvent.notificationSettings(settings)),
                    "recorded, not refused as too_large");
            assertEquals(1, ledger.flush().accepted());
            JSONObject sent = server.requests.get(0).body.getJSONArray("events").getJSONObject(0);
            assertTrue(FieldReader.utf8(sent.toString()) <= 32 << 10);
            JSONArray channels = sent.getJSONArray("channels");
            List<String> ids = new ArrayList<>();
            int blocked = 0;
            for (int i = 0; i < channels.length(); i++) {
                JSONObject c = channels.getJSONObject(i);
                ids.add(c.getString("id"));
                if (c.getInt("importance") == 0 || c.optBoolean("group_blocked")) blocked++;
            }
            int expectedBlocked = 0;
            for (AndroidSettings.Channel c : settings.channels) if (c.isBlocked()) expectedBlocked++;
            assertEquals(expectedBlocked, blocked, "every blocked channel is kept");
            assertTrue(channels.length() > 250 && channels.length() < 600, "filled up to the limit: "
                    + channels.length());
            List<String> inOrder = new ArrayList<>(ids);
            inOrder.sort((a, b) -> Integer.compare(Integer.parseInt(a.split("_")[1]),
                    Integer.parseInt(b.split("_")[1])));
            assertEquals(inOrder, ids, "in the app's order");
            assertTrue(log.contains("unblocked channels left out"));
        }
    }

    @Test
    void aSnapshotWithinTheLimitIsSentWhole() throws Exception {
        try (Loopback server = new Loopback((r, n) -> Loopback.Answer.ok(r))) {
            PushLedger ledger = Fixtures.ledger(server.url(), Fixtures.directory(), log);
            ledger.record(PushLedgerEvent.notificationSettings(manyChannels(200)));
            ledger.flush();
            JSONObject sent = server.requests.get(0).body.getJSONArray("events").getJSONObject(0);
            assertEquals(200, sent.getJSONArray("channels").length());
        }
    }

    @Test
    void theForceStopFactIsUsedUpWhenASnapshotCarryingItIsRecorded() throws Exception {
        ProcessStart.reset();
        PushLedger ledger = Fixtures.ledger("http://127.0.0.1:9", Fixtures.directory(), log);
        // A snapshot the contract refuses (an empty channel id) is not recorded: the fact stays.
        AndroidSettings refused = AndroidSettings.builder(true).channel("", 3)
            .forceStoppedBeforeStart(ProcessStart.unrecorded(true)).build();
        assertThrows(PushLedgerException.class, () -> ledger.record(PushLedgerEvent.notificationSettings(refused)));
        assertEquals(Boolean.TRUE, ProcessStart.unrecorded(true), "still there for the next snapshot");
        ledger.record(PushLedgerEvent.notificationSettings(AndroidSettings.builder(true)
            .forceStoppedBeforeStart(ProcessStart.unrecorded(true)).build()));
        assertNull(ProcessStart.unrecorded(true), "recorded once per process");
        assertNull(ProcessStart.unrecorded(false));
        ProcessStart.reset();
    }
}
