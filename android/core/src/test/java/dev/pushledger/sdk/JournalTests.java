package dev.pushledger.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.json.JSONObject;
import org.junit.jupiter.api.Test;

/** The journal on disk: one durable file per event, one installation id per directory, the cap. */
class JournalTests {
    private final File directory = Fixtures.directory();
    private final Fixtures.Log log = new Fixtures.Log();
    private final PushLedgerEvent exposure = PushLedgerEvent.experimentExposure("push_prompt_timing", "first_screen");

    @Test
    void theInstallationIdIsMintedOncePerDirectory() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<UUID>> ids = new ArrayList<>();
        for (int i = 0; i < 16; i++) ids.add(pool.submit(() -> Fixtures.ledger("http://127.0.0.1:9", directory, log).installationId()));
        Set<UUID> distinct = new HashSet<>();
        for (Future<UUID> id : ids) distinct.add(id.get());
        pool.shutdown();
        assertEquals(1, distinct.size(), "every instance on one directory shares the id");
        File file = new File(directory, "PushLedger/installation-id");
        assertEquals(distinct.iterator().next().toString(), new String(java.nio.file.Files.readAllBytes(file.toPath()), StandardCharsets.UTF_8));
        assertFalse(Fixtures.ledger("http://127.0.0.1:9", Fixtures.directory(), log).installationId().equals(distinct.iterator().next()));
    }

    @Test
    void aRecordedEventIsOneCompleteFileWhenRecordReturns() throws Exception {
        PushLedger ledger = Fixtures.ledger("http://127.0.0.1:9", directory, log);
        long at = System.currentTimeMillis();
        ledger.record(exposure, at - 1);
        UUID id = ledger.record(exposure, at);
        File[] files = new File(directory, "PushLedger/events").listFiles();
        assertEquals(2, files.length);
        List<Journal.Entry> entries = new Journal(directory, new NioDirectorySync()).entries();
        assertEquals(id, entries.get(1).eventId(), "names sort in record order");
        assertEquals(at * 1000, Long.parseLong(entries.get(1).name.substring(0, 16), 16) / 1000 * 1000, "named by the event's time");
        File file = new File(directory, "PushLedger/events/" + entries.get(1).name);
        String[] lines = new String(java.nio.file.Files.readAllBytes(file.toPath()), StandardCharsets.UTF_8).split("\n");
        assertEquals("{\"app_version\":\"5.2.0\",\"os_version\":\"14\",\"sdk_int\":34}", lines[0]);
        assertEquals(id.toString(), new JSONObject(lines[1]).getString("event_id"));
        assertEquals(0, new File(directory, "PushLedger/incoming").list().length, "nothing half-written is left");
    }

    @Test
    void pastTheCapTheOldestAreDroppedAndCounted() throws Exception {
        try (Loopback server = new Loopback((r, n) -> Loopback.Answer.ok(r))) {
            PushLedger ledger = new PushLedger(Fixtures.config(server.url(), Fixtures.KEY, directory, log).maxJournal(5, 1 << 20).build());
            List<UUID> ids = new ArrayList<>();
            long now = System.currentTimeMillis();
            for (int i = 0; i < 8; i++) ids.add(ledger.record(exposure, now - 1000 + i));
            FlushResult result = ledger.flush();
            assertEquals(3, result.droppedByCap());
            assertEquals(5, result.accepted());
            assertEquals(3, ledger.droppedCount());
            Set<String> sent = new HashSet<>();
            for (Loopback.Request r : server.requests) {
                for (int i = 0; i < r.events(); i++) sent.add(r.body.getJSONArray("events").getJSONObject(i).getString("event_id"));
            }
            Set<String> newest = new HashSet<>();
            for (UUID id : ids.subList(3, 8)) newest.add(id.toString());
            assertEquals(newest, sent, "the newest five are kept");
            assertTrue(log.contains("journal over its cap"));
            // The byte cap: each entry is ~250 bytes.
            PushLedger small = new PushLedger(Fixtures.config(server.url(), Fixtures.KEY, directory, log).maxJournal(100, 600).build());
            for (int i = 0; i < 4; i++) small.record(exposure);
            assertEquals(2, small.flush().droppedByCap());
            assertEquals(5, small.droppedCount(), "the count persists across instances");
        }
    }

    @Test
    void anUnreadableEntryIsRemovedAndLoggedAndOldPartialFilesAreCleared() throws Exception {
        try (Loopback server = new Loopback((r, n) -> Loopback.Answer.ok(r))) {
            PushLedger ledger = Fixtures.ledger(server.url(), directory, log);
            ledger.record(exposure);
            File junk = new File(directory, "PushLedger/events/0000000000000001-" + UUID.randomUUID() + ".event");
            try (FileOutputStream out = new FileOutputStream(junk)) {
                out.write("not a journal record".getBytes(StandardCharsets.UTF_8));
            }
            File partial = new File(directory, "PushLedger/incoming/" + UUID.randomUUID() + ".partial");
            assertTrue(partial.createNewFile() && partial.setLastModified(System.currentTimeMillis() - 7_200_000));
            File fresh = new File(directory, "PushLedger/incoming/" + UUID.randomUUID() + ".partial");
            assertTrue(fresh.createNewFile());
            assertEquals(2, ledger.pendingCount());
            assertEquals(1, ledger.flush().accepted());
            assertEquals(0, ledger.pendingCount());
            assertTrue(log.contains("unreadable journal entry removed"));
            assertFalse(partial.exists(), "a writer killed an hour ago left it");
            assertTrue(fresh.exists(), "a writer may still be writing it");
        }
    }

    @Test
    void aSecondFlusherWaitsForTheLockAndGivesUpAsBusy() throws Exception {
        PushLedger waiting = new PushLedger(Fixtures.config("http://127.0.0.1:9", Fixtures.KEY, directory, log).lockWaitMillis(100).build());
        waiting.record(exposure);
        Journal journal = new Journal(directory, new NioDirectorySync());
        try (Journal.Lock held = journal.tryFlushLock(0)) {
            assertTrue(held != null);
            FlushIncompleteException e = org.junit.jupiter.api.Assertions.assertThrows(FlushIncompleteException.class, waiting::flush);
            assertEquals(FlushFailure.Kind.BUSY, e.reason().kind);
            assertEquals(1, e.remaining());
        }
    }
}
