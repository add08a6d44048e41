package dev.pushledger.sdk.android;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import androidx.work.WorkManager;

import java.util.HashSet;
import java.util.Set;

import org.json.JSONObject;
import org.junit.jupiter.api.Test;

import dev.pushledger.sdk.PushLedgerEvent;

/** Uploads through WorkManager: none lost while one runs, retried by WorkManager, never more than one waiting. */
class UploadSchedulingTests {
    private static final PushLedgerEvent EXPOSURE = PushLedgerEvent.experimentExposure("push_prompt_timing",
            "first_screen");

    @Test
    void anEventRecordedWhileAnUploadRunsIsUploadedByTheNextOne() throws Exception {
        FakeApp phone = new FakeApp(34);
        phone.start();
        phone.duringRequest = () -> {
            phone.duringRequest = null;
            PushLedgerAndroid.record(phone.app, EXPOSURE); // a receipt journalled while the upload is on its way
        };
        assertEquals(WorkManager.State.SUCCEEDED, phone.runUpload().state);
        assertEquals(1, phone.journal().size(), "recorded after the upload read the journal");
        assertEquals(1, phone.uploadsWaiting(), "an upload appended after the one that ran");
        phone.runUpload();
        assertEquals(0, phone.journal().size());
        assertEquals(2, phone.sent().size());
    }

    @Test
    void aFailedUploadIsRetriedByWorkManagerWithoutSleepingInTheWorker() throws Exception {
        FakeApp phone = new FakeApp(34);
        phone.script = (body, n) -> n == 1 ? FakeApp.json(503, "{\"error\":\"unavailable\",\"message\":\"x\"}")
                : FakeApp.ok(body);
        phone.start();
        long started = System.nanoTime();
        WorkManager.Work work = phone.runUpload();
        assertTrue(System.nanoTime() - started < 400_000_000L, "no backoff slept inside the worker");
        assertEquals(1, phone.requests.size(), "one attempt per run");
        assertEquals(WorkManager.State.ENQUEUED, work.state, "Result.retry()");
        assertEquals(30_000, work.nextDelayMillis, "WorkManager's backoff");
        phone.runUpload();
        assertEquals(WorkManager.State.SUCCEEDED, work.state);
        assertEquals(0, phone.journal().size());
    }

    @Test
    void aProxysHtml400KeepsTheEventsAndTheNextRunStoresThemOnce() throws Exception {
        FakeApp phone = new FakeApp(34);
        phone.script = (body, n) -> n == 1 ? FakeApp.answer(400, "text/html",
                "<html><body>Request blocked by firewall</body></html>")
            : FakeApp.ok(body);
        phone.start();
        PushLedgerAndroid.record(phone.app, EXPOSURE);
        PushLedgerAndroid.record(phone.app, EXPOSURE);
        assertEquals(WorkManager.State.ENQUEUED, phone.runUpload().state, "retried like a 5xx");
        assertEquals(3, phone.journal().size(), "nothing dropped");
        phone.runUpload();
        Set<String> ids = new HashSet<>();
        for (JSONObject e : phone.sent()) ids.add(e.getString("event_id"));
        assertEquals(3, phone.sent().size());
        assertEquals(3, ids.size(), "each stored once");
    }

    @Test
    void aKeyProblemFailsTheUploadAndTheNextRecordSchedulesAgain() throws Exception {
        FakeApp phone = new FakeApp(34);
        phone.script = (body, n) -> n == 1 ? FakeApp.json(401, "{\"error\":\"unauthorized\",\"message\":\"x\"}")
                : FakeApp.ok(body);
        phone.start();
        assertEquals(WorkManager.State.FAILED, phone.runUpload().state);
        assertEquals(0, phone.uploadsWaiting());
        PushLedgerAndroid.record(phone.app, EXPOSURE);
        assertEquals(1, phone.uploadsWaiting(), "a new chain replaces the failed one");
        phone.runUpload();
        assertEquals(0, phone.journal().size());
    }

    @Test
    void manyRecordsLeaveOneUploadWaiting() throws Exception {
        FakeApp phone = new FakeApp(34);
        phone.start();
        for (int i = 0; i < 50; i++) PushLedgerAndroid.record(phone.app, EXPOSURE);
        assertEquals(1, phone.uploadsWaiting());
        phone.runUpload();
        assertEquals(51, phone.sent().size());
    }
}
