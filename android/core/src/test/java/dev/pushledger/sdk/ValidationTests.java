package dev.pushledger.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import org.json.JSONObject;
import org.junit.jupiter.api.Test;

/** {@code record} refuses what the server would reject, with the contract's code, and keeps nothing of it. */
class ValidationTests {
    private final File directory = Fixtures.directory();
    private final Fixtures.Log log = new Fixtures.Log();

    private PushLedger ledger() throws PushLedgerException { return Fixtures.ledger("http://127.0.0.1:9", directory, log); }

    private String refusal(PushLedgerEvent event) throws PushLedgerException {
        PushLedger ledger = ledger();
        PushLedgerException e = assertThrows(PushLedgerException.class, () -> ledger.record(event));
        assertEquals(0, ledger.pendingCount(), "a refused event is not journalled");
        return e.code() + ": " + e.getMessage();
    }

    @Test
    void everyTypeOfTheGuideIsRecorded() throws Exception {
        PushLedger ledger = ledger();
        for (PushLedgerEvent event : Fixtures.everyType(UUID.randomUUID())) ledger.record(event);
        assertEquals(6, ledger.pendingCount());
    }

    @Test
    void eventsTheServerWouldRejectAreRefusedWithItsCodeAndMessage() throws Exception {
        UUID n = UUID.randomUUID();
        assertEquals("invalid_field: invalid field \"placement\": expected a slug of 1 to 64 characters a-z, 0-9 or _",
            refusal(PushLedgerEvent.permissionPrompt("After First Order", PromptKind.SYSTEM, PromptResult.GRANTED)));
        assertEquals("invalid_field: invalid field \"channels[0].importance\": expected one of -1000, 0, 1, 2, 3, 4, 5, got a number",
            refusal(PushLedgerEvent.notificationSettings(AndroidSettings.builder(true).channel("orders", 7).build())));
        assertEquals("invalid_field: invalid field \"channels[1].id\": expected a non-empty string",
            refusal(PushLedgerEvent.notificationSettings(AndroidSettings.builder(true).channel("orders", 3).channel("", 3).build())));
        assertEquals("invalid_field: invalid field \"token\": expected an FCM token: 1 to 4096 printable ASCII characters",
            refusal(PushLedgerEvent.pushToken(PushProvider.FCM, "token with a tab\t")));
        assertEquals("invalid_field: invalid field \"token\": expected an APNs token: hex of even length 64 to 200",
            refusal(PushLedgerEvent.pushToken(PushProvider.APNS, "abc")));
        assertEquals("invalid_field: invalid field \"action\": expected a non-empty string",
            refusal(PushLedgerEvent.notificationOpened(n, "", null, null)));
        assertEquals("invalid_field: invalid field \"channel\": must not contain U+0000",
            refusal(PushLedgerEvent.notificationReceived(n, "a\u0000b", null)));
        assertTrue(refusal(PushLedgerEvent.notificationOpened(n, "default", "https://x/" + repeat('a', 4100), null))
            .startsWith("invalid_field: invalid field \"link\": expected at most 4096 bytes"));
    }

    @SuppressWarnings("ConstantConditions")
    @Test
    void aNullWhereTheAnnotationsForbidOneIsAMissingField() throws Exception {
        assertEquals("missing_field: missing field \"placement\"", refusal(PushLedgerEvent.permissionPrompt(null, PromptKind.SYSTEM, PromptResult.GRANTED)));
        assertEquals("missing_field: missing field \"notification_id\"", refusal(PushLedgerEvent.notificationReceived(null, null, null)));
    }

    @Test
    void tooLargeTooOldAndInFutureAreJudgedOnTheDeviceClock() throws Exception {
        AndroidSettings.Builder big = AndroidSettings.builder(true);
        for (int i = 0; i < 200; i++) big.channel("channel_with_a_long_name_" + i + repeat('x', 150), 3);
        PushLedger ledger = ledger();
        // A snapshot over the limit is capped to fit, not refused (SnapshotTests); the validator still refuses an
        // event that is too large.
        assertTrue(ledger.record(PushLedgerEvent.notificationSettings(big.build())) != null);
        String oversized = "{\"event_id\":\"" + java.util.UUID.randomUUID()
                + "\",\"type\":\"experiment_exposure\",\"at\":\""
            + Rfc3339.format(System.currentTimeMillis() * 1000)
            + "\",\"experiment\":\"e\",\"variant\":\"v\",\"pad\":\"" + repeat('x', 33_000) + "\"}";
        TelemetryValidator.Verdict verdict = TelemetryValidator.validate(ledger.uploader.body("{}", null,
                java.util.Collections.singletonList(oversized)),
            Fixtures.APP, System.currentTimeMillis(), IngestLimits.defaults());
        assertEquals("too_large", verdict.rejected.get(0).code);
        assertTrue(verdict.rejected.get(0).message.matches("the event is \\d+ bytes, at most 32768 are allowed"),
                verdict.rejected.get(0).message);
        long now = System.currentTimeMillis();
        PushLedgerEvent exposure = PushLedgerEvent.experimentExposure("push_prompt_timing", "first_screen");
        assertEquals("too_old", assertThrows(PushLedgerException.class, () -> ledger.record(exposure, now - 31L * 86_400_000)).code());
        assertEquals("in_future", assertThrows(PushLedgerException.class, () -> ledger.record(exposure, now + 2L * 86_400_000)).code());
        ledger.record(exposure, now - 29L * 86_400_000);
        assertEquals(2, ledger.pendingCount(), "the capped snapshot and the exposure");
    }

    @Test
    void slashesAreMeasuredAsOrgJsonWritesThem() {
        // org.json writes "/" as "\/": a link of 4,096 bytes is valid, and its event text is longer than its bytes.
        String link = "https://shop.example.com/" + repeat('/', 4096 - 25);
        String text = PushLedgerEvent.notificationOpened(UUID.randomUUID(), "default", link, null).json(UUID.randomUUID(), 0);
        assertTrue(text.contains("https:\\/\\/shop.example.com\\/"), text.substring(0, 120));
        assertTrue(FieldReader.utf8(text) > 2 * 4096 - 25);
    }

    @Test
    void aConfigurationTheServerWouldRefuseFailsAtOnce() {
        PushLedgerException e = assertThrows(PushLedgerException.class,
            () -> new PushLedger(PushLedgerConfig.builder("", "http://127.0.0.1:9", Fixtures.KEY, directory).build()));
        assertEquals("invalid_configuration", e.code());
        assertEquals("invalid field \"app_id\": expected a non-empty string", e.getMessage());
        assertEquals("invalid_configuration", assertThrows(PushLedgerException.class,
            () -> new PushLedger(PushLedgerConfig.builder(Fixtures.APP, "ingest.example.com", Fixtures.KEY, directory).build())).code());
        // Versions the contract refuses are left out instead of failing every batch.
        PushLedgerConfig config = PushLedgerConfig.builder(Fixtures.APP, "http://x", Fixtures.KEY, directory).appVersion("").sdkInt(0).build();
        assertNull(config.appVersion);
        assertNull(config.sdkInt);
    }

    @Test
    void theValidatorsEnvelopeChecksComeInTheServersOrder() throws Exception {
        IngestLimits limits = IngestLimits.defaults();
        long now = System.currentTimeMillis();
        assertEquals("invalid_json", TelemetryValidator.validate("{\"app_id\": ", Fixtures.APP, now, limits).code);
        assertEquals("invalid_json", TelemetryValidator.validate("{} {}", Fixtures.APP, now, limits).code);
        assertEquals("the body must be a JSON object, got an array", TelemetryValidator.validate("[]", Fixtures.APP, now, limits).message);
        TelemetryValidator.Verdict missing = TelemetryValidator.validate("{\"app_id\":\"com.example.shop\",\"platform\":\"web\"}", Fixtures.APP, now, limits);
        assertEquals(Arrays.asList(400, "missing_field", "missing field \"installation_id\""), Arrays.asList(missing.status, missing.code, missing.message));
        String other = "{\"app_id\":\"com.other\",\"installation_id\":\"" + UUID.randomUUID() + "\",\"platform\":\"android\",\"events\":[]}";
        assertEquals(403, TelemetryValidator.validate(other, Fixtures.APP, now, limits).status);
        String oneEvent = "{\"app_id\":\"com.example.shop\",\"installation_id\":\"" + UUID.randomUUID() + "\",\"platform\":\"android\",\"events\":[1]}";
        JSONObject answer = TelemetryValidator.validate(oneEvent, Fixtures.APP, now, limits).answer();
        assertEquals("invalid field \"event\": expected a JSON object, got a number", answer.getJSONArray("rejected").getJSONObject(0).getString("message"));
        assertEquals(413, TelemetryValidator.validate(oneEvent, Fixtures.APP, now, new IngestLimits(1 << 20, 0, 1 << 15, 1, 1)).status);
    }

    @Test
    void webEnvelopesAndEventsAreJudgedAsTheServerJudgesThem() {
        long now = System.currentTimeMillis();
        List<String> failures = new ArrayList<>();
        for (WebCases.Case c : WebCases.all(now)) {
            TelemetryValidator.Verdict verdict = TelemetryValidator.validate(c.body, Fixtures.APP, now, IngestLimits.defaults());
            String said = WebCases.summary(verdict.status, verdict.answer());
            if (!said.equals(c.expected)) failures.add(c.body + "\n  expected " + c.expected + "\n  the core said " + said);
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    @Test
    void aWebPushEndpointsHostIsFoundAsTheServerFindsIt() {
        assertEquals("updates.push.services.mozilla.com", FieldReader.endpointHost("HTTPS://Updates.Push.Services.Mozilla.com/wpush/v2/x"));
        assertEquals("push.example.com", FieldReader.endpointHost("https://user:secret@push.example.com:8443/p"));
        assertEquals("web.push.apple.com", FieldReader.endpointHost("https://a@b@web.push.apple.com/x"));
        assertEquals("[2001:db8::1]", FieldReader.endpointHost("https://[2001:db8::1]:443/push"));
        assertEquals("h", FieldReader.endpointHost("https://h"));
        assertEquals("example.com", FieldReader.endpointHost("https://example.com?x=/y"));
        for (String none : new String[] {"https://", "https:///x", "https://user@/x", "https://:1/x", "https://[::1/x", "http://example.com/"}) {
            assertNull(FieldReader.endpointHost(none), none);
        }
        for (String endpoint : WebCases.ENDPOINTS) assertTrue(FieldReader.isWebPushEndpoint(endpoint), endpoint);
        for (String endpoint : WebCases.NOT_ENDPOINTS) assertFalse(FieldReader.isWebPushEndpoint(endpoint), endpoint);
        assertEquals(2048, WebCases.ENDPOINTS.get(WebCases.ENDPOINTS.size() - 1).length());
    }

    @Test
    void theSkewCorrectionIsTheServers() {
        long now = 1_800_000_000_000L;
        String at = Rfc3339.format((now + 2L * 86_400_000) * 1000);
        String body = "{\"app_id\":\"com.example.shop\",\"installation_id\":\"" + UUID.randomUUID() + "\",\"platform\":\"android\",\"sent_at\":\"" + at
            + "\",\"events\":[{\"event_id\":\"" + UUID.randomUUID() + "\",\"type\":\"experiment_exposure\",\"at\":\"" + at
            + "\",\"experiment\":\"a\",\"variant\":\"b\"}]}";
        assertEquals(1, TelemetryValidator.validate(body, Fixtures.APP, now, IngestLimits.defaults()).accepted, "a device two days ahead is corrected");
        assertEquals(0, TelemetryValidator.validate(body.replace("\"sent_at\"", "\"sent_at_\""), Fixtures.APP, now, IngestLimits.defaults()).accepted);
    }

    @Test
    void rfc3339ParsesAndFormatsAsTheServerDoes() {
        assertEquals(Long.valueOf(1_764_496_805_120_000L), Rfc3339.parse("2025-11-30T10:00:05.120Z"));
        assertEquals("2025-11-30T10:00:05.120000Z", Rfc3339.format(1_764_496_805_120_000L));
        assertEquals(Rfc3339.parse("2025-11-30T10:00:05.120Z"), Rfc3339.parse("2025-11-30t11:00:05.1200009+01:00"));
        assertEquals(Rfc3339.parse("2025-12-31T23:59:60Z"), Rfc3339.parse("2026-01-01T00:00:00Z"));
        assertEquals("1969-12-31T23:59:59.999999Z", Rfc3339.format(-1));
        for (String bad : new String[] {"2025-02-29T00:00:00Z", "2025-11-30 10:00:05Z", "2025-11-30T10:00:05", "2025-11-30T10:00:05.Z",
                "2025-11-30T24:00:00Z", "2025-11-30T10:00:05+1:00"}) {
            assertNull(Rfc3339.parse(bad), bad);
        }
    }

    @Test
    void theEnumsWordsAreTheContracts() {
        assertEquals(Arrays.asList("granted", "provisional", "denied", "dismissed", "already_determined"), Wire.words(PromptResult.class));
        assertEquals(Arrays.asList("active", "working_set", "frequent", "rare", "restricted"), Wire.words(StandbyBucket.class));
        assertEquals(Arrays.asList("granted", "denied", "not_required"), Wire.words(PostNotifications.class));
        assertEquals(Arrays.asList("target", "fallback", "rejected"), Wire.words(Landing.class));
        assertEquals(Arrays.asList("apns", "fcm"), Wire.words(PushProvider.class));
        assertEquals(Arrays.asList("system", "primer"), Wire.words(PromptKind.class));
    }

    static String repeat(char c, int n) {
        char[] chars = new char[n];
        Arrays.fill(chars, c);
        return new String(chars);
    }
}
