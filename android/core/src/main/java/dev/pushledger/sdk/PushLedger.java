package dev.pushledger.sdk;

import java.net.MalformedURLException;
import java.net.URL;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The SDK's entry point: records events durably into a journal shared by every process on the
 * storage directory and uploads them with {@link #flush()}. {@code record} is synchronous and
 * safe from any thread or process; a process killed right after {@code record} returned loses
 * nothing, and every recorded event is stored exactly once.
 */
public final class PushLedger {
    private final PushLedgerConfig config;
    private final UUID installationId;
    private final Journal journal;
    final Uploader uploader;
    private final String context;
    private final Backoff backoff = new Backoff();

    /** Opens (or creates) the journal on the configuration's storage directory. */
    public PushLedger(@NotNull PushLedgerConfig config) throws PushLedgerException {
        if (config.maxBatchEvents < 1 || config.maxJournalEvents < 1 || config.maxJournalBytes < 1) {
            throw new PushLedgerException("invalid_configuration", "batch and journal sizes must be positive");
        }
        try {
            new URL(config.baseUrl);
        } catch (MalformedURLException e) {
            throw new PushLedgerException("invalid_configuration", "the base URL is not a URL: " + e.getMessage());
        }
        this.config = config;
        journal = new Journal(config.storageDir, config.directorySync);
        installationId = journal.installationId();
        uploader = new Uploader(config, installationId);
        try {
            JSONObject c = new JSONObject();
            c.put("app_version", config.appVersion);
            c.put("os_version", config.osVersion);
            c.put("sdk_int", config.sdkInt);
            context = c.toString();
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
        // The envelope the server will see, judged once by the contract's own rules.
        TelemetryValidator.Verdict probe = TelemetryValidator.validate(
            uploader.body(context, null, new ArrayList<String>()), config.appId, config.clock.nowMillis(), config.limits);
        if (probe.status != 200) throw new PushLedgerException("invalid_configuration", String.valueOf(probe.message));
    }

    /** The installation this storage directory belongs to: minted once, the same for every process and launch. */
    public @NotNull UUID installationId() { return installationId; }

    /** {@link #record(PushLedgerEvent, long)} at the device clock's now. */
    public @Nullable UUID record(@NotNull PushLedgerEvent event) throws PushLedgerException {
        return record(event, config.clock.nowMillis());
    }

    /**
     * Journals {@code event} (time {@code atEpochMillis} on the device clock) and returns its
     * event id once it is on disk (fsynced); null, recording nothing, while the ledger is
     * disabled ({@link #setEnabled}). An event the server would reject throws with the contract's
     * error code and is not kept. A snapshot over the event size limit keeps its blocked channels
     * first and leaves out the channels that do not fit ({@link AndroidSettings}).
     */
    public @Nullable UUID record(@NotNull PushLedgerEvent event, long atEpochMillis) throws PushLedgerException {
        if (journal.disabled()) return null;
        UUID id = UUID.randomUUID();
        long micros = atEpochMillis * 1000;
        String text;
        try {
            text = event.json(id, micros);
            String fitted = event.fitted(text, id, micros, config.limits.maxEventBytes);
            if (fitted != text) {
                log(config, PushLedgerLogger.Level.WARNING,
                        "snapshot over the event size limit: unblocked channels left out",
                    "bytes", FieldReader.utf8(text), "limit", config.limits.maxEventBytes);
                text = fitted;
            }
        } catch (IllegalArgumentException e) {
            throw new PushLedgerException("invalid_field", String.valueOf(e.getMessage()));
        }
        List<String> one = new ArrayList<>();
        one.add(text);
        TelemetryValidator.Verdict verdict = TelemetryValidator.validate(
            uploader.body(context, null, one), config.appId, config.clock.nowMillis(), config.limits);
        if (verdict.status != 200) throw new PushLedgerException("invalid_configuration", String.valueOf(verdict.message));
        if (!verdict.rejected.isEmpty()) {
            TelemetryValidator.Rejection r = verdict.rejected.get(0);
            throw new PushLedgerException(r.code, r.message);
        }
        journal.append(id, micros, context, text);
        if (event.carriesForceStop()) ProcessStart.recorded();
        return id;
    }

    /** How often the same token is recorded again, so an install the server lost track of is repaired within a day. */
    static final long TOKEN_REFRESH_MILLIS = 86_400_000L;
    /** How many opened notifications {@link #recordOpen} remembers: more than a device shows at once. */
    static final int OPENS_REMEMBERED = 200;

    /**
     * Records {@code push_token} when {@code token} differs from the last one recorded on this
     * storage directory or that was a day ago or more; null when not due (or disabled). For the
     * token the app asks for at every start, so an install that existed before the SDK (whose
     * {@code onNewToken} never runs again) registers too. Only a SHA-256 of the token is kept.
     */
    public @Nullable UUID recordTokenIfDue(@NotNull PushProvider provider,
            @NotNull String token) throws PushLedgerException {
        String digest = Digest.sha256Hex(Wire.of(provider) + ":" + token);
        long now = config.clock.nowMillis();
        Journal.Lock lock = journal.stateLock();
        try {
            String[] last = String.valueOf(journal.readState("token-recorded")).trim().split(" ");
            if (last.length == 2 && last[0].equals(digest)) {
                try {
                    long at = Long.parseLong(last[1]);
                    if (now - at < TOKEN_REFRESH_MILLIS && now >= at) return null;
                } catch (NumberFormatException ignored) {
                    // An unreadable state records the token again.
                }
            }
            UUID id = record(PushLedgerEvent.pushToken(provider, token), now);
            if (id != null) journal.writeState("token-recorded", digest + " " + now);
            return id;
        } finally {
            lock.close();
        }
    }

    /**
     * Records {@code notification_opened} for {@code payload} once per notification: a second call
     * for the same {@code notification_id} (the activity recreated, relaunched from Recents, the
     * same intent handled twice) records nothing and returns null. The last
     * {@value #OPENS_REMEMBERED} ids are remembered on the storage directory.
     */
    public @Nullable UUID recordOpen(@NotNull NotificationPayload payload, @NotNull String action,
            @Nullable Landing landed)
            throws PushLedgerException {
        PushLedgerEvent event = payload.open(action, landed);
        if (event == null || payload.notificationId == null) return null;
        String id = payload.notificationId.toString();
        Journal.Lock lock = journal.stateLock();
        try {
            String state = journal.readState("opened");
            List<String> opened = new ArrayList<>();
            if (state != null) for (String line : state.split("\n")) if (!line.isEmpty()) opened.add(line);
            if (opened.contains(id)) return null;
            UUID recorded = record(event);
            if (recorded == null) return null;
            opened.add(id);
            while (opened.size() > OPENS_REMEMBERED) opened.remove(0);
            StringBuilder text = new StringBuilder();
            for (String line : opened) text.append(line).append('\n');
            journal.writeState("opened", text.toString());
            return recorded;
        } finally {
            lock.close();
        }
    }

    /**
     * The consent switch, for every process on the storage directory and every later launch:
     * disabled, {@code record} journals nothing and {@code flush} sends nothing; events journalled
     * before stay until {@link #clearPending()} or until the ledger is enabled again and flushed.
     */
    public void setEnabled(boolean enabled) throws PushLedgerException { journal.setDisabled(!enabled); }

    /** Whether the ledger records and uploads ({@link #setEnabled}); true unless switched off. */
    public boolean isEnabled() { return !journal.disabled(); }

    /**
     * Deletes every journalled event without sending it (a user's request to erase what was not
     * uploaded yet); waits for a flush in progress. Returns how many were deleted.
     */
    public int clearPending() throws PushLedgerException {
        Journal.Lock lock = journal.tryFlushLock(config.lockWaitMillis);
        if (lock == null) throw new FlushIncompleteException(pendingCount(), new FlushFailure(FlushFailure.Kind.BUSY,
                0, null), new FlushResult());
        try {
            List<Journal.Entry> entries = journal.entries();
            journal.remove(entries);
            return entries.size();
        } finally {
            lock.close();
        }
    }

    /**
     * Uploads every event journalled before the call (other processes' too), ignoring any
     * backoff in progress; blocks. Rejected events are dropped, logged and listed in the result,
     * never retried. Throws {@link FlushIncompleteException} when any of them is still journalled
     * on return (server down, 429/5xx after the retries, 401/403, another flusher kept the lock).
     * Disabled ({@link #setEnabled}): sends nothing and returns an empty result.
     */
    public @NotNull FlushResult flush() throws PushLedgerException {
        if (journal.disabled()) return new FlushResult();
        Journal.Lock lock = journal.tryFlushLock(config.lockWaitMillis);
        if (lock == null) throw new FlushIncompleteException(pendingCount(), new FlushFailure(FlushFailure.Kind.BUSY,
                0, null), new FlushResult());
        try {
            FlushResult result = new FlushResult();
            result.droppedByCap = journal.prune(config.maxJournalEvents, config.maxJournalBytes, config.clock.nowMillis());
            if (result.droppedByCap > 0) log(config, PushLedgerLogger.Level.WARNING, "journal over its cap: oldest events dropped", "dropped", result.droppedByCap);
            List<Journal.Entry> entries = journal.entries();
            Deque<Journal.Entry> cursor = new ArrayDeque<>(entries);
            Deque<Journal.Entry> retry = new ArrayDeque<>();
            int maxEvents = Math.min(config.maxBatchEvents, config.limits.maxEventsPerRequest);
            for (Uploader.Batch batch; (batch = nextBatch(retry, cursor, maxEvents)) != null; ) {
                Uploader.Outcome outcome;
                try {
                    outcome = uploader.deliver(batch);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    outcome = Uploader.Outcome.failed(new FlushFailure(FlushFailure.Kind.NETWORK, 0, "interrupted"), false, null);
                }
                switch (outcome.kind) {
                    case STORED:
                        journal.remove(batch.entries);
                        result.accepted += outcome.accepted;
                        result.duplicates += outcome.duplicates;
                        report(outcome.rejected, result);
                        break;
                    case REFUSED:
                        journal.remove(batch.entries);
                        report(outcome.rejected, result);
                        break;
                    case TOO_LARGE:
                        if (batch.entries.size() > 1) {
                            // The server's limits are lower than ours: halve the batches and send these again.
                            maxEvents = Math.max(1, batch.entries.size() / 2);
                            retry.addAll(batch.entries);
                            log(config, PushLedgerLogger.Level.WARNING, "batch too large; splitting", "events", batch.entries.size(), "error", outcome.code);
                        } else {
                            journal.remove(batch.entries);
                            List<FlushResult.RejectedEvent> one = new ArrayList<>();
                            one.add(new FlushResult.RejectedEvent(batch.entries.get(0).eventId(), outcome.code, outcome.message));
                            report(one, result);
                        }
                        break;
                    default:
                        backoff.failed(config.retry, outcome.retryAfter, config.clock.nowMillis());
                        int remaining = 0;
                        for (Journal.Entry entry : entries) if (journal.contains(entry)) remaining++;
                        log(config, PushLedgerLogger.Level.WARNING, "flush incomplete", "remaining", remaining, "reason", outcome.failure);
                        throw new FlushIncompleteException(remaining, outcome.failure, result);
                }
            }
            backoff.succeeded();
            return result;
        } finally {
            lock.close();
        }
    }

    /**
     * {@link #flush()} unless an earlier failure's backoff (exponential with jitter, or the
     * server's {@code Retry-After}) has not run out yet; then null. For calls on every
     * foreground, receiver or periodic job.
     */
    public @Nullable FlushResult flushIfDue() throws PushLedgerException {
        if (!backoff.isDue(config.clock.nowMillis())) return null;
        return flush();
    }

    /** Events journalled now, by every process on the directory. */
    public int pendingCount() { return journal.entries().size(); }

    /** Events the journal cap has dropped since the directory was created. */
    public long droppedCount() { return journal.droppedCount(); }

    /** Entries to send again first, else consecutive entries of one context within the limits. Unreadable files are removed. */
    private @Nullable Uploader.Batch nextBatch(Deque<Journal.Entry> retry, Deque<Journal.Entry> cursor, int maxEvents) throws PushLedgerException {
        Uploader.Batch[] batch = {null};
        Deque<Journal.Entry> source = retry.isEmpty() ? cursor : retry;
        while (!source.isEmpty()) {
            Journal.Entry entry = source.peekFirst();
            Journal.Record record = journal.read(entry);
            if (record == null) {
                if (journal.contains(entry)) {
                    log(config, PushLedgerLogger.Level.ERROR, "unreadable journal entry removed", "entry", entry.name);
                    List<Journal.Entry> one = new ArrayList<>();
                    one.add(entry);
                    journal.remove(one);
                }
                source.removeFirst();
                continue;
            }
            if (batch[0] == null) batch[0] = new Uploader.Batch(record.context, uploader.eventBudget(record.context));
            Uploader.Batch b = batch[0];
            long cost = FieldReader.utf8(record.event) + 1;
            if (!b.context.equals(record.context) || b.entries.size() >= maxEvents || (b.bytes + cost > b.maxBytes && !b.entries.isEmpty())) break;
            b.entries.add(entry);
            b.events.add(record.event);
            b.bytes += cost;
            source.removeFirst();
        }
        return batch[0];
    }

    private void report(List<FlushResult.RejectedEvent> rejected, FlushResult result) {
        for (FlushResult.RejectedEvent r : rejected) {
            log(config, PushLedgerLogger.Level.WARNING, "event rejected by the server; dropped", "event_id", r.eventId, "error", r.code, "message", r.message);
        }
        result.rejected.addAll(rejected);
    }

    /** A structured line to the configured logger; {@code pairs} are key, value, key, value … */
    static void log(PushLedgerConfig config, PushLedgerLogger.Level level, String message, Object... pairs) {
        Map<String, Object> fields = new LinkedHashMap<>();
        for (int i = 0; i + 1 < pairs.length; i += 2) fields.put(String.valueOf(pairs[i]), pairs[i + 1]);
        config.logger.log(level, PushLedgerLogger.line(level, message, fields));
    }

    /** When the next {@link #flushIfDue()} may upload after failures (consecutive failures drive the backoff). */
    static final class Backoff {
        private final Random random = new Random();
        private int failures;
        private long notBefore = Long.MIN_VALUE;

        synchronized void failed(RetryPolicy policy, @Nullable String retryAfter, long nowMillis) {
            failures++;
            notBefore = nowMillis + policy.delayMillis(failures, retryAfter, random.nextDouble());
        }

        synchronized void succeeded() {
            failures = 0;
            notBefore = Long.MIN_VALUE;
        }

        synchronized boolean isDue(long nowMillis) { return nowMillis >= notBefore; }
    }
}
