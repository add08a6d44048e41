package dev.pushledger.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import org.json.JSONObject;
import org.junit.jupiter.api.Test;

/** Status handling, batching, backoff and splitting, against a scripted loopback server. */
class UploadTests {
    private final File directory = Fixtures.directory();
    private final Fixtures.Log log = new Fixtures.Log();
    private final PushLedgerEvent exposure = PushLedgerEvent.experimentExposure("push_prompt_timing", "first_screen");

    private PushLedger ledger(Loopback server, PushLedgerConfig.Builder tweaks) throws PushLedgerException {
        return new PushLedger(tweaks.build());
    }

    private PushLedgerConfig.Builder config(Loopback server) {
        return Fixtures.config(server.url(), Fixtures.KEY, directory, log);
    }

    /** The delays the uploader asked for, instead of sleeping through them. */
    private static List<Long> recordSleeps(PushLedger ledger) {
        List<Long> sleeps = Collections.synchronizedList(new ArrayList<Long>());
        ledger.uploader.sleeper = sleeps::add;
        return sleeps;
    }

    @Test
    void aBatchIsGzippedJsonWithTheEnvelopeAndSentAt() throws Exception {
        AtomicLong clock = new AtomicLong(1_764_496_805_120L);
        try (Loopback server = new Loopback((r, n) -> Loopback.Answer.ok(r))) {
            PushLedger ledger = ledger(server, config(server).clock(clock::get));
            UUID id = ledger.record(exposure);
            clock.addAndGet(5_000);
            FlushResult result = ledger.flush();
            assertEquals(1, result.accepted());
            Loopback.Request request = server.requests.get(0);
            assertEquals("gzip", request.headers.get("Content-encoding").get(0));
            assertEquals("application/json", request.headers.get("Content-type").get(0));
            assertEquals("Bearer " + Fixtures.KEY, request.headers.get("Authorization").get(0));
            assertEquals("pushledger-android/" + Fixtures.version(), request.headers.get("X-pushledger-sdk").get(0),
                    "the SDK and its release");
            JSONObject body = request.body;
            assertEquals(Fixtures.APP, body.getString("app_id"));
            assertEquals(ledger.installationId().toString(), body.getString("installation_id"));
            assertEquals("android", body.getString("platform"));
            assertEquals("5.2.0", body.getString("app_version"));
            assertEquals(34, body.getInt("sdk_int"));
            assertEquals("2025-11-30T10:00:10.120000Z", body.getString("sent_at"), "stamped when the batch leaves");
            JSONObject event = body.getJSONArray("events").getJSONObject(0);
            assertEquals(id.toString(), event.getString("event_id"));
            assertEquals("2025-11-30T10:00:05.120000Z", event.getString("at"));
            assertEquals(0, ledger.pendingCount());
        }
    }

    @Test
    void unauthorizedAndForbiddenKeepTheEventsAndAreNotRetried() throws Exception {
        for (int status : new int[] {401, 403}) {
            File directory = Fixtures.directory();
            try (Loopback server = new Loopback((r, n) -> Loopback.Answer.error(status, status == 401 ? "unauthorized" : "forbidden"))) {
                PushLedger ledger = new PushLedger(Fixtures.config(server.url(), Fixtures.KEY, directory, log).build());
                ledger.record(exposure);
                ledger.record(exposure);
                FlushIncompleteException e = assertThrows(FlushIncompleteException.class, ledger::flush);
                assertEquals(FlushFailure.Kind.UNAUTHORIZED, e.reason().kind);
                assertEquals(status, e.reason().status);
                assertEquals(2, e.remaining());
                assertEquals(1, server.requests.size(), "a key problem is not retried");
                assertEquals(2, ledger.pendingCount());
                for (String line : log.lines()) assertFalse(line.contains(Fixtures.KEY), "the key never reaches the log");
                ledger.flush(); // the next flush tries again (throws unless the script changes)
            } catch (FlushIncompleteException expected) {
                assertEquals(2, expected.remaining());
            }
        }
    }

    @Test
    void rejectedEventsAreDroppedReportedAndNeverRetried() throws Exception {
        try (Loopback server = new Loopback((r, n) -> {
            try {
                String id = r.body.getJSONArray("events").getJSONObject(1).getString("event_id");
                return new Loopback.Answer(200, "application/json",
                        "{\"accepted\":1,\"duplicates\":1,\"rejected\":[{\"index\":1,\"event_id\":\"" + id
                    + "\",\"error\":\"invalid_field\",\"message\":\"invalid field \\\"variant\\\": scripted\"}]}", null);
            } catch (org.json.JSONException e) {
                throw new IllegalStateException(e);
            }
        })) {
            PushLedger ledger = ledger(server, config(server));
            ledger.record(exposure);
            UUID second = ledger.record(exposure);
            ledger.record(exposure);
            FlushResult result = ledger.flush();
            assertEquals(1, result.accepted());
            assertEquals(1, result.duplicates());
            assertEquals(1, result.rejected().size());
            assertEquals(second, result.rejected().get(0).eventId);
            assertEquals("invalid_field", result.rejected().get(0).code);
            assertEquals(0, ledger.pendingCount());
            assertTrue(log.contains("event rejected by the server; dropped"));
            assertEquals(1, server.requests.size());
        }
    }

    @Test
    void aRequestRefusedAsAWholeDropsItsEvents() throws Exception {
        try (Loopback server = new Loopback((r, n) -> Loopback.Answer.error(400, "invalid_field"))) {
            PushLedger ledger = ledger(server, config(server));
            ledger.record(exposure);
            ledger.record(exposure);
            FlushResult result = ledger.flush();
            assertEquals(2, result.rejected().size());
            assertEquals("invalid_field", result.rejected().get(0).code);
            assertEquals(0, ledger.pendingCount());
        }
    }

    @Test
    void tooLargeHalvesTheBatchesAndASingleTooLargeEventIsDropped() throws Exception {
        try (Loopback server = new Loopback((r, n) -> r.events() > 3 ? Loopback.Answer.error(413, "too_many_events") : Loopback.Answer.ok(r))) {
            PushLedger ledger = ledger(server, config(server));
            for (int i = 0; i < 10; i++) ledger.record(exposure);
            FlushResult result = ledger.flush();
            assertEquals(10, result.accepted());
            assertEquals(0, ledger.pendingCount());
            List<Integer> sizes = new ArrayList<>();
            for (Loopback.Request r : server.requests) sizes.add(r.events());
            assertEquals(java.util.Arrays.asList(10, 5, 2, 2, 2, 2, 2), sizes);
            assertTrue(log.contains("batch too large; splitting"));
        }
        try (Loopback server = new Loopback((r, n) -> Loopback.Answer.error(413, "body_too_large"))) {
            PushLedger ledger = ledger(server, config(server));
            UUID id = ledger.record(exposure);
            FlushResult result = ledger.flush();
            assertEquals(id, result.rejected().get(0).eventId);
            assertEquals("body_too_large", result.rejected().get(0).code);
            assertEquals(0, ledger.pendingCount());
        }
    }

    @Test
    void retryAfterIsHonouredThenTheBatchGoesThrough() throws Exception {
        try (Loopback server = new Loopback((r, n) -> n == 1
                ? new Loopback.Answer(429, "application/json", "{\"error\":\"overloaded\",\"message\":\"x\"}", "0.15")
                : n == 2 ? Loopback.Answer.error(503, "database_unavailable") : Loopback.Answer.ok(r))) {
            PushLedger ledger = ledger(server, config(server));
            List<Long> sleeps = recordSleeps(ledger);
            ledger.record(exposure);
            assertEquals(1, ledger.flush().accepted());
            assertEquals(3, server.requests.size());
            assertEquals(150L, (long) sleeps.get(0), "Retry-After: 0.15 s");
            assertTrue(sleeps.get(1) >= 20 && sleeps.get(1) <= 40, "no Retry-After: the jittered exponential, " + sleeps.get(1));
        }
    }

    @Test
    void unavailableAfterTheRetriesKeepsTheEventsAndBacksOff() throws Exception {
        AtomicLong clock = new AtomicLong(System.currentTimeMillis());
        try (Loopback server = new Loopback((r, n) -> new Loopback.Answer(503, "application/json",
                "{\"error\":\"database_unavailable\",\"message\":\"x\"}", "30"))) {
            PushLedger ledger = ledger(server, config(server).clock(clock::get).retry(new RetryPolicy(3, 20, 100, 60_000)));
            List<Long> sleeps = recordSleeps(ledger);
            ledger.record(exposure);
            FlushIncompleteException e = assertThrows(FlushIncompleteException.class, ledger::flush);
            assertEquals(FlushFailure.Kind.UNAVAILABLE, e.reason().kind);
            assertEquals(503, e.reason().status);
            assertEquals("database_unavailable", e.reason().code);
            assertEquals(1, e.remaining());
            assertEquals(3, server.requests.size(), "maxAttempts");
            assertEquals(java.util.Arrays.asList(30_000L, 30_000L), sleeps);
            assertNull(ledger.flushIfDue(), "the server asked for 30 s");
            assertEquals(3, server.requests.size());
            clock.addAndGet(31_000);
            assertThrows(FlushIncompleteException.class, ledger::flushIfDue);
            assertEquals(6, server.requests.size());
            assertThrows(FlushIncompleteException.class, ledger::flush, "flush ignores the backoff");
            assertEquals(9, server.requests.size());
        }
    }

    @Test
    void noAnswerIsANetworkFailureThatKeepsTheEvents() throws Exception {
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        PushLedger ledger = Fixtures.ledger("http://127.0.0.1:" + port, directory, log);
        List<Long> sleeps = recordSleeps(ledger);
        ledger.record(exposure);
        FlushIncompleteException e = assertThrows(FlushIncompleteException.class, ledger::flush);
        assertEquals(FlushFailure.Kind.NETWORK, e.reason().kind);
        assertEquals(2, sleeps.size(), "retried");
        assertEquals(1, ledger.pendingCount());
    }

    @Test
    void anUnexpectedStatusStopsTheFlush() throws Exception {
        try (Loopback server = new Loopback((r, n) -> new Loopback.Answer(404, "text/html", "<html>not here</html>",
                null))) {
            PushLedger ledger = ledger(server, config(server));
            ledger.record(exposure);
            FlushIncompleteException e = assertThrows(FlushIncompleteException.class, ledger::flush);
            assertEquals(FlushFailure.Kind.UNEXPECTED, e.reason().kind);
            assertEquals("http_404", e.reason().code);
            assertEquals(1, server.requests.size());
        }
    }

    @Test
    void batchesStayWithinTheEventAndByteLimitsMeasuredOnTheSentText() throws Exception {
        try (Loopback server = new Loopback((r, n) -> Loopback.Answer.ok(r))) {
            // 4 KiB links of slashes, written as \/ by org.json: about 8 KiB of text each.
            String link = "https://shop.example.com/" + ValidationTests.repeat('/', 4096 - 25);
            IngestLimits limits = new IngestLimits(40_000, 2_000, 32 << 10, 30L * 86_400_000, 86_400_000);
            PushLedger ledger = ledger(server, config(server).limits(limits).maxBatchEvents(7));
            for (int i = 0; i < 12; i++) ledger.record(PushLedgerEvent.notificationOpened(UUID.randomUUID(), "default", link, null));
            for (int i = 0; i < 9; i++) ledger.record(exposure);
            assertEquals(21, ledger.flush().accepted());
            List<Integer> sizes = new ArrayList<>();
            for (Loopback.Request r : server.requests) {
                sizes.add(r.events());
                assertTrue(r.body.toString().length() <= 40_000, "within the byte limit");
            }
            // Four 8 KiB opens fill a request; the third takes three small exposures besides, up to 7 events.
            assertEquals(java.util.Arrays.asList(4, 4, 7, 6), sizes);
        }
    }

    @Test
    void aNewAppVersionStartsANewBatch() throws Exception {
        try (Loopback server = new Loopback((r, n) -> Loopback.Answer.ok(r))) {
            ledger(server, config(server)).record(exposure);
            ledger(server, config(server).appVersion("5.3.0")).record(exposure);
            PushLedger ledger = ledger(server, config(server).appVersion("5.3.0"));
            ledger.record(exposure);
            assertEquals(3, ledger.flush().accepted());
            assertEquals(2, server.requests.size());
            assertEquals("5.2.0", server.requests.get(0).body.getString("app_version"), "each event keeps the version it was recorded under");
            assertEquals(2, server.requests.get(1).events());
        }
    }

    @Test
    void anUnreadable200KeepsTheEvents() throws Exception {
        try (Loopback server = new Loopback((r, n) -> new Loopback.Answer(200, "application/json", "{\"ok\":true}",
                null))) {
            PushLedger ledger = ledger(server, config(server));
            ledger.record(exposure);
            FlushIncompleteException e = assertThrows(FlushIncompleteException.class, ledger::flush);
            assertEquals("unreadable_answer", e.reason().code);
            assertNotNull(e.partial());
            assertEquals(1, ledger.pendingCount());
        }
    }
}
