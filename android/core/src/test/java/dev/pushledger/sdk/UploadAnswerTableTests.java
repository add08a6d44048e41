package dev.pushledger.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.jupiter.api.Test;

/**
 * The shared table of answers to an upload (Tests/Fixtures/upload-answers.json), every row
 * played by a loopback server against a real flush of two journalled events: what is dropped,
 * kept, split or retried is observed in the journal and the requests, not in a classifier alone.
 * PushLedgerKit runs the same rows.
 */
class UploadAnswerTableTests {
    private final Fixtures.Log log = new Fixtures.Log();

    static JSONObject table() throws Exception {
        File file = new File(System.getProperty("pushledger.fixtures", "Tests/Fixtures"), "upload-answers.json");
        return new JSONObject(new String(Files.readAllBytes(file.toPath()), StandardCharsets.UTF_8));
    }

    @Test
    void theRefusalCodesAreTheTablesOwn() throws Exception {
        JSONArray codes = table().getJSONArray("refusal_codes");
        List<String> listed = new ArrayList<>();
        for (int i = 0; i < codes.length(); i++) listed.add(codes.getString(i));
        assertEquals(listed, Uploader.REFUSAL_CODES);
    }

    @Test
    void everyRowOfTheSharedTableHasItsOutcome() throws Exception {
        JSONArray rows = table().getJSONArray("rows");
        assertTrue(rows.length() >= 20);
        for (int i = 0; i < rows.length(); i++) play(rows.getJSONObject(i));
    }

    private void play(JSONObject row) throws Exception {
        String where = row.toString();
        String retryAfter = row.isNull("retry_after") ? null : row.optString("retry_after", null);
        Loopback.Answer scripted = new Loopback.Answer(row.getInt("status"),
            row.isNull("content_type") ? null : row.getString("content_type"), row.getString("body"), retryAfter);
        try (Loopback server = new Loopback((r, n) -> n == 1 ? scripted : Loopback.Answer.ok(r))) {
            PushLedger ledger = new PushLedger(Fixtures.config(server.url(), Fixtures.KEY, Fixtures.directory(), log)
                .retry(new RetryPolicy(3, 20, 100, 60_000)).build());
            List<Long> sleeps = Collections.synchronizedList(new ArrayList<Long>());
            ledger.uploader.sleeper = sleeps::add;
            PushLedgerEvent exposure = PushLedgerEvent.experimentExposure("push_prompt_timing", "first_screen");
            ledger.record(exposure);
            ledger.record(exposure);
            String outcome = row.getString("outcome");
            switch (outcome) {
                case "stored": {
                    FlushResult result = ledger.flush();
                    assertEquals(2, result.accepted(), where);
                    assertEquals(1, server.requests.size(), where);
                    break;
                }
                case "refused": {
                    FlushResult result = ledger.flush();
                    assertEquals(2, result.rejected().size(), where);
                    assertEquals(new JSONObject(row.getString("body")).getString("error"),
                            result.rejected().get(0).code, where);
                    assertEquals(0, ledger.pendingCount(), where);
                    assertEquals(1, server.requests.size(), "not sent again: " + where);
                    break;
                }
                case "split": {
                    FlushResult result = ledger.flush();
                    assertEquals(2, result.accepted(), "nothing dropped: " + where);
                    assertEquals(3, server.requests.size(), "the two events sent again one by one: " + where);
                    assertEquals(1, server.requests.get(1).events(), where);
                    break;
                }
                case "retry": {
                    FlushResult result = ledger.flush();
                    assertEquals(2, result.accepted(), "kept and sent again: " + where);
                    assertEquals(2, server.requests.size(), where);
                    assertEquals(1, sleeps.size(), where);
                    if (retryAfter != null) assertEquals(Math.round(Double.parseDouble(retryAfter) * 1000),
                            (long) sleeps.get(0), where);
                    break;
                }
                case "unauthorized":
                case "unexpected": {
                    FlushIncompleteException e = assertThrows(FlushIncompleteException.class, ledger::flush, where);
                    FlushFailure.Kind kind = outcome.equals("unauthorized") ? FlushFailure.Kind.UNAUTHORIZED
                            : FlushFailure.Kind.UNEXPECTED;
                    assertEquals(kind, e.reason().kind, where);
                    assertEquals(2, ledger.pendingCount(), "kept: " + where);
                    assertEquals(1, server.requests.size(), "not retried within the flush: " + where);
                    break;
                }
                default:
                    fail("an outcome the table does not define: " + where);
            }
        }
    }

    @Test
    void aSingleEventIsDroppedOn413OnlyWhenPushLedgerSaysSo() throws Exception {
        for (Loopback.Answer answer : new Loopback.Answer[] {Loopback.Answer.html(413), Loopback.Answer.error(413,
                "body_too_large")}) {
            try (Loopback server = new Loopback((r, n) -> answer)) {
                PushLedger ledger = Fixtures.ledger(server.url(), Fixtures.directory(), log);
                ledger.record(PushLedgerEvent.experimentExposure("push_prompt_timing", "first_screen"));
                if (answer.contentType.equals("text/html")) {
                    FlushIncompleteException e = assertThrows(FlushIncompleteException.class, ledger::flush);
                    assertEquals(413, e.reason().status);
                    assertEquals(1, ledger.pendingCount(), "a proxy's body limit loses nothing");
                } else {
                    assertEquals(1, ledger.flush().rejected().size());
                    assertEquals(0, ledger.pendingCount());
                }
            }
        }
    }
}
