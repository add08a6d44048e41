package dev.pushledger.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;

import org.junit.jupiter.api.Test;

/** The consent switch: off records and sends nothing, for every instance on the directory, until on again. */
class ConsentTests {
    private final Fixtures.Log log = new Fixtures.Log();
    private final PushLedgerEvent exposure = PushLedgerEvent.experimentExposure("push_prompt_timing", "first_screen");

    @Test
    void disabledRecordsAndSendsNothingAndTheQueueIsClearedOnRequest() throws Exception {
        try (Loopback server = new Loopback((r, n) -> Loopback.Answer.ok(r))) {
            File directory = Fixtures.directory();
            PushLedger ledger = Fixtures.ledger(server.url(), directory, log);
            ledger.record(exposure);
            ledger.record(exposure);
            ledger.setEnabled(false);
            assertFalse(ledger.isEnabled());
            PushLedger other = Fixtures.ledger(server.url(), directory, log);
            assertFalse(other.isEnabled(), "another process, or the next launch, sees the switch");
            assertNull(other.record(exposure), "nothing recorded");
            assertEquals(2, ledger.pendingCount());
            assertEquals(0, ledger.flush().accepted());
            assertEquals(0, server.requests.size(), "nothing sent while disabled");
            ledger.setEnabled(true);
            assertTrue(other.isEnabled());
            assertEquals(2, other.flush().accepted(), "the events from before the switch, once enabled again");
            ledger.record(exposure);
            ledger.setEnabled(false);
            assertEquals(1, ledger.clearPending());
            assertEquals(0, ledger.pendingCount());
        }
    }
}
