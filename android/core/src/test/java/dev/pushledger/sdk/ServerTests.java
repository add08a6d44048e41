package dev.pushledger.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The core against the real {@code pushledger serve} and Postgres. */
class ServerTests {
    private static IngestServer server;
    private final Fixtures.Log log = new Fixtures.Log();

    @BeforeAll
    static void start() throws Exception { server = new IngestServer(); }

    @AfterAll
    static void stop() { server.close(); }

    private PushLedger ledger(String key, File directory) throws PushLedgerException {
        return ledger(key, directory, server.url());
    }

    private PushLedger ledger(String key, File directory, String url) throws PushLedgerException {
        return new PushLedger(Fixtures.config(url, key, directory, log).build());
    }

    @Test
    void everyEventTypeTheCoreEncodesIsStoredOnce() throws Exception {
        PushLedger ledger = ledger(server.key(), Fixtures.directory());
        Map<UUID, Integer> recorded = new HashMap<>();
        for (PushLedgerEvent event : Fixtures.everyType(UUID.randomUUID())) recorded.put(ledger.record(event), 1);
        FlushResult result = ledger.flush();
        assertEquals(6, result.accepted(), result.toString());
        assertTrue(result.rejected().isEmpty(), result.rejected().toString());
        assertEquals(recorded, server.stored(ledger.installationId()));
        assertEquals("5.2.0|android|34", server.psql("select app_version, platform, sdk_int from installations where installation_id = '"
            + ledger.installationId() + "'").trim());
        assertEquals("orders:4::false,promotions:0:marketing:true", server.psql("select string_agg(channel_id || ':' || importance || ':' "
            + "|| coalesce(group_id, '') || ':' || blocked, ',' order by channel_id) from channel_states where installation_id = '"
            + ledger.installationId() + "'").trim());
    }

    @Test
    void anUnknownKeyKeepsTheEventsAndTheRightKeyDeliversThem() throws Exception {
        File directory = Fixtures.directory();
        PushLedger wrong = ledger("plk_unknown_key", directory);
        UUID id = wrong.record(PushLedgerEvent.experimentExposure("push_prompt_timing", "first_screen"));
        FlushIncompleteException e = assertThrows(FlushIncompleteException.class, wrong::flush);
        assertEquals(FlushFailure.Kind.UNAUTHORIZED, e.reason().kind);
        assertEquals(401, e.reason().status);
        assertEquals("unauthorized", e.reason().code, "the 401 body is read (no fixed-length streaming)");
        assertEquals(1, e.remaining());
        PushLedger right = ledger(server.key(), directory);
        assertEquals(1, right.flush().accepted());
        assertEquals(1, (int) server.stored(right.installationId()).get(id));
        PushLedger sends = ledger(server.db.sendsKey, Fixtures.directory());
        sends.record(PushLedgerEvent.experimentExposure("push_prompt_timing", "first_screen"));
        assertEquals(403, assertThrows(FlushIncompleteException.class, sends::flush).reason().status, "a sends key may not post telemetry");
    }

    @Test
    void aDeviceClockTwoDaysAheadIsCorrectedByTheServer() throws Exception {
        long skew = 2L * 86_400_000;
        PushLedger ledger = new PushLedger(Fixtures.config(server.url(), server.key(), Fixtures.directory(), log)
            .clock(() -> System.currentTimeMillis() + skew).build());
        ledger.record(PushLedgerEvent.experimentExposure("push_prompt_timing", "first_screen"));
        assertEquals(1, ledger.flush().accepted());
        List<String> row = IngestServer.lines(server.psql("select extract(epoch from at - now())::int8, extract(epoch from occurred_at - now())::int8 "
            + "from experiment_exposures where installation_id = '" + ledger.installationId() + "'").replace('|', '\n'));
        long at = Long.parseLong(row.get(0)), occurred = Long.parseLong(row.get(1));
        assertTrue(Math.abs(at - 172_800) < 60, "the raw device time is kept: " + at);
        assertTrue(Math.abs(occurred) < 60, "the corrected time is the server's: " + occurred);
    }

    @Test
    void theJournalCapDropsTheOldestAndTheRestIsStored() throws Exception {
        PushLedger ledger = new PushLedger(Fixtures.config(server.url(), server.key(), Fixtures.directory(), log).maxJournal(20, 1 << 20).build());
        java.util.List<UUID> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 30; i++) ids.add(ledger.record(PushLedgerEvent.experimentExposure("push_prompt_timing", "v" + i)));
        FlushResult result = ledger.flush();
        assertEquals(10, result.droppedByCap());
        assertEquals(20, result.accepted());
        Map<UUID, Integer> stored = server.stored(ledger.installationId());
        assertEquals(20, stored.size());
        assertTrue(stored.keySet().containsAll(ids.subList(10, 30)), "the newest 20 are stored");
    }

    @Test
    void eventsSurviveAProxysHtml400AndAreStoredOnceWhenTheServerIsBack() throws Exception {
        File directory = Fixtures.directory();
        List<UUID> ids = new java.util.ArrayList<>();
        try (Loopback proxy = new Loopback((r, n) -> new Loopback.Answer(400, "text/html",
                "<html><head><title>400 Bad Request</title></head><body>Request blocked by firewall</body></html>",
                        null))) {
            PushLedger blocked = ledger(server.key(), directory, proxy.url());
            for (int i = 0; i < 3; i++) {
                ids.add(blocked.record(PushLedgerEvent.experimentExposure("push_prompt_timing", "v" + i)));
            }
            FlushIncompleteException e = assertThrows(FlushIncompleteException.class, blocked::flush);
            assertEquals(FlushFailure.Kind.UNAVAILABLE, e.reason().kind);
            assertEquals(400, e.reason().status);
            assertEquals(3, e.remaining());
            assertEquals(3, proxy.requests.size(), "retried like a 5xx");
        }
        PushLedger back = ledger(server.key(), directory);
        assertEquals(3, back.flush().accepted());
        assertEquals(0, back.flush().accepted(), "nothing left to send");
        Map<UUID, Integer> stored = server.stored(back.installationId());
        for (UUID id : ids) assertEquals(1, (int) stored.get(id), "stored once: " + id);
    }
}
