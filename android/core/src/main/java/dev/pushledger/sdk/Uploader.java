package dev.pushledger.sdk;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.zip.GZIPOutputStream;

import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;
import org.json.JSONTokener;

/**
 * Posts batches to {@code /v1/telemetry}, gzipped, {@code sent_at} stamped per attempt (the
 * server corrects device clock skew with it), retrying what may succeed later.
 */
final class Uploader {
    /** Consecutive journal entries recorded under one context, within the request limits. */
    static final class Batch {
        final String context;
        final long maxBytes;
        final List<Journal.Entry> entries = new ArrayList<>();
        final List<String> events = new ArrayList<>();
        long bytes;

        Batch(String context, long maxBytes) {
            this.context = context;
            this.maxBytes = maxBytes;
        }
    }

    /** What the server's answer means for a batch's journal entries. */
    static final class Outcome {
        enum Kind {
            /** 200: every event is answered for (stored, duplicate or rejected): remove them all. */
            STORED,
            /** PushLedger's own 400: refused as a whole; the events will never be accepted as sent. */
            REFUSED,
            /** 413: smaller requests may pass. */
            TOO_LARGE,
            /** Keep the events. */
            FAILED
        }

        final Kind kind;
        int accepted, duplicates;
        final List<FlushResult.RejectedEvent> rejected = new ArrayList<>();
        @Nullable FlushFailure failure;
        boolean retryable;
        @Nullable String retryAfter;
        String code = "", message = "";

        Outcome(Kind kind) { this.kind = kind; }

        static Outcome failed(FlushFailure failure, boolean retryable, @Nullable String retryAfter) {
            Outcome o = new Outcome(Kind.FAILED);
            o.failure = failure;
            o.retryable = retryable;
            o.retryAfter = retryAfter;
            return o;
        }
    }

    /**
     * The SDK's name and release, sent with every request (docs/contract.md, Requests): the server
     * need not store it; proxies' and the server's access logs show which SDK versions post.
     */
    static final String SDK_HEADER = "X-PushLedger-SDK";
    static final String SDK = "pushledger-android/" + SdkVersion.VERSION;

    /** Injected so tests need not sleep through real backoffs. */
    interface Sleeper { void sleep(long millis) throws InterruptedException; }

    private final PushLedgerConfig config;
    private final UUID installationId;
    private final Random random = new Random();
    Sleeper sleeper = Thread::sleep;

    Uploader(PushLedgerConfig config, UUID installationId) {
        this.config = config;
        this.installationId = installationId;
    }

    String url() {
        String base = config.baseUrl;
        while (base.endsWith("/")) base = base.substring(0, base.length() - 1);
        return base + "/v1/telemetry";
    }

    /** The request body: the envelope with the batch context, then the journalled event texts as they are. */
    String body(String context, @Nullable Long sentAtMicros, List<String> events) {
        try {
            JSONObject envelope = new JSONObject();
            envelope.put("app_id", config.appId);
            envelope.put("installation_id", installationId.toString());
            envelope.put("platform", "android");
            JSONObject fields = new JSONObject(context);
            for (Iterator<String> keys = fields.keys(); keys.hasNext(); ) {
                String key = keys.next();
                envelope.put(key, fields.get(key));
            }
            if (sentAtMicros != null) envelope.put("sent_at", Rfc3339.format(sentAtMicros));
            String head = envelope.toString();
            StringBuilder body = new StringBuilder(head.length() + 64);
            body.append(head, 0, head.length() - 1).append(",\"events\":[");
            for (int i = 0; i < events.size(); i++) body.append(i == 0 ? "" : ",").append(events.get(i));
            return body.append("]}").toString();
        } catch (JSONException e) {
            throw new IllegalStateException("unreadable batch context", e);
        }
    }

    /** Bytes left for a batch's events (each costs its UTF-8 length plus a comma). */
    long eventBudget(String context) {
        long envelope = FieldReader.utf8(body(context, 0L, new ArrayList<String>()));
        return config.limits.maxBodyBytes - envelope;
    }

    /** One batch, with retries: what the last answer means. */
    Outcome deliver(Batch batch) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            Outcome outcome = attemptOnce(batch);
            if (outcome.kind != Outcome.Kind.FAILED || !outcome.retryable || attempt >= config.retry.maxAttempts) return outcome;
            long delay = config.retry.delayMillis(attempt, outcome.retryAfter, random.nextDouble());
            PushLedger.log(config, PushLedgerLogger.Level.INFO, "upload retry", "attempt", attempt, "delay_ms", delay, "reason", outcome.failure);
            sleeper.sleep(delay);
        }
    }

    Outcome attemptOnce(Batch batch) {
        byte[] body = gzip(body(batch.context, config.clock.nowMillis() * 1000, batch.events));
        Map<String, String> headers = new HashMap<>();
        headers.put("Authorization", "Bearer " + config.telemetryKey);
        headers.put("Content-Type", "application/json");
        headers.put("Content-Encoding", "gzip");
        headers.put(SDK_HEADER, SDK);
        PushLedgerTransport.Response response;
        try {
            response = config.transport.send(new PushLedgerTransport.Request(url(), headers, body, config.requestTimeoutMillis));
        } catch (IOException | RuntimeException e) {
            return Outcome.failed(new FlushFailure(FlushFailure.Kind.NETWORK, 0, e.getClass().getSimpleName() + ": " + e.getMessage()), true, null);
        }
        return interpret(response, batch);
    }

    /**
     * The 400 codes with which PushLedger refuses a request whole (docs/contract.md, Responses):
     * the only answers that may drop events. The shared table Tests/Fixtures/upload-answers.json
     * lists the same codes.
     */
    static final List<String> REFUSAL_CODES = Collections.unmodifiableList(
        Arrays.asList("invalid_json", "invalid_gzip", "missing_field", "invalid_field", "unstorable"));

    /**
     * The answer's body when it is PushLedger's own JSON error: {@code Content-Type}
     * {@code application/json} (parameters and case aside) and an object whose {@code error} and
     * {@code message} are strings. A proxy's, firewall's or other service's answer is not, whatever
     * its status: it must never drop events.
     */
    static @Nullable JSONObject ownError(PushLedgerTransport.Response response) {
        String type = response.header("Content-Type");
        if (type == null) return null;
        int semicolon = type.indexOf(';');
        String media = (semicolon < 0 ? type : type.substring(0, semicolon)).trim();
        if (!media.equalsIgnoreCase("application/json")) return null;
        try {
            Object value = new JSONTokener(new String(response.body, StandardCharsets.UTF_8)).nextValue();
            if (!(value instanceof JSONObject)) return null;
            JSONObject answer = (JSONObject) value;
            return answer.opt("error") instanceof String && answer.opt("message") instanceof String ? answer : null;
        } catch (JSONException e) {
            return null;
        }
    }

    /**
     * The contract's statuses (docs/contract.md, Responses) mapped to what the journal does. Only
     * PushLedger's own answers drop events; the rows of Tests/Fixtures/upload-answers.json are the
     * rule's test table (PushLedgerKit runs the same rows).
     */
    static Outcome interpret(PushLedgerTransport.Response response, Batch batch) {
        JSONObject answer = null;
        try {
            answer = new JSONObject(new String(response.body, StandardCharsets.UTF_8));
        } catch (JSONException ignored) {
            // Not a JSON object (a proxy's HTML page …): the status alone decides.
        }
        JSONObject own = ownError(response);
        Object error = answer == null ? null : answer.opt("error");
        Object text = answer == null ? null : answer.opt("message");
        String code = error instanceof String ? (String) error : "http_" + response.status;
        String message = text instanceof String ? (String) text : "";
        int status = response.status;
        if (status == 200) {
            Long accepted = answer == null ? null : FieldReader.integer(answer.opt("accepted"));
            Long duplicates = answer == null ? null : FieldReader.integer(answer.opt("duplicates"));
            Object list = answer == null ? null : answer.opt("rejected");
            if (accepted == null || duplicates == null || !(list instanceof JSONArray)) {
                return Outcome.failed(new FlushFailure(FlushFailure.Kind.UNEXPECTED, 200, "unreadable_answer"), false, null);
            }
            Outcome o = new Outcome(Outcome.Kind.STORED);
            o.accepted = accepted.intValue();
            o.duplicates = duplicates.intValue();
            JSONArray rejected = (JSONArray) list;
            for (int i = 0; i < rejected.length(); i++) {
                JSONObject item = rejected.optJSONObject(i);
                if (item == null) continue;
                Object id = item.opt("event_id");
                UUID eventId = id instanceof String ? FieldReader.uuid((String) id) : null;
                Long index = FieldReader.integer(item.opt("index"));
                if (eventId == null && index != null && index >= 0 && index < batch.entries.size()) {
                    eventId = batch.entries.get(index.intValue()).eventId();
                }
                o.rejected.add(new FlushResult.RejectedEvent(eventId, item.optString("error", "unknown"), item.optString("message", "")));
            }
            return o;
        }
        if (status == 400 && own != null && REFUSAL_CODES.contains(own.optString("error"))) {
            Outcome o = new Outcome(Outcome.Kind.REFUSED);
            for (Journal.Entry entry : batch.entries) o.rejected.add(new FlushResult.RejectedEvent(entry.eventId(), code, message));
            return o;
        }
        if (status == 413) {
            // A single event is dropped on 413 only when PushLedger says so: a proxy's smaller body limit must not
            // lose it.
            if (batch.entries.size() <= 1 && own == null) {
                return Outcome.failed(new FlushFailure(FlushFailure.Kind.UNEXPECTED, status, code), false, null);
            }
            Outcome o = new Outcome(Outcome.Kind.TOO_LARGE);
            o.code = code;
            o.message = message;
            return o;
        }
        if (status == 401 || status == 403) return Outcome.failed(new FlushFailure(FlushFailure.Kind.UNAUTHORIZED, status, code), false, null);
        // Any other 400 is someone else's (a proxy, a firewall, a captive portal): kept and retried like a 5xx.
        if (status == 400 || status == 429 || (status >= 500 && status <= 599)) {
            return Outcome.failed(new FlushFailure(FlushFailure.Kind.UNAVAILABLE, status, code), true, response.header("Retry-After"));
        }
        return Outcome.failed(new FlushFailure(FlushFailure.Kind.UNEXPECTED, status, code), false, null);
    }

    static byte[] gzip(String text) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (GZIPOutputStream zip = new GZIPOutputStream(out)) {
                zip.write(text.getBytes(StandardCharsets.UTF_8));
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e); // in memory: cannot happen
        }
    }
}
