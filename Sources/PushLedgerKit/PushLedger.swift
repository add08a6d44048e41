import Foundation
import PushLedgerSupport

/// The SDK's entry point: records events durably into a journal shared by every process on
/// the storage directory (the app and its extensions) and uploads them with `flush()`.
/// `record` is synchronous and safe from any thread or process; a process killed right after
/// `record` returned loses nothing, and every recorded event is stored exactly once.
public final class PushLedger: Sendable {
    public let configuration: Configuration
    /// The installation this storage directory belongs to: minted once, the same for every
    /// process and every later launch on that directory.
    public let installationID: UUID
    let journal: Journal
    let uploader: Uploader
    private let backoff = BackoffState()

    public init(configuration: Configuration) throws(PushLedgerError) {
        guard configuration.maxBatchEvents >= 1, configuration.maxJournalEvents >= 1, configuration.maxJournalBytes >= 1
        else {
            throw .invalidConfiguration("batch and journal sizes must be positive")
        }
        self.configuration = configuration
        journal = try Journal(storageDirectory: configuration.storageDirectory)
        installationID = try journal.installationID()
        uploader = Uploader(configuration: configuration, installationID: installationID)
        // The envelope the server will see, checked once by the contract's own validator.
        let probe = TelemetryEnvelope(
            appID: configuration.appID, installationID: installationID, platform: configuration.platform)
        do {
            _ = try TelemetryValidator.validate(
                body: probe.jsonValue(events: []).serialized(), keyAppID: configuration.appID, receivedAt: Date(),
                limits: configuration.limits)
        } catch {
            throw .invalidConfiguration(error.message)
        }
    }

    /// Journals `event` (time `at`, the device clock) and returns its event id once it is on
    /// disk (fsynced). An event the server would reject throws `invalidEvent` and is not kept.
    @discardableResult
    public func record(_ event: PushLedgerEvent, at: Date = Date()) throws(PushLedgerError) -> UUID {
        let id = UUID()
        let value = TelemetryEvent(index: 0, eventID: id, at: at, occurredAt: at, payload: event.payload).jsonValue
        try check(value)
        try journal.append(eventID: id, at: at, context: configuration.context, event: value.serialized())
        return id
    }

    /// Uploads every event journalled before the call (also other processes' events), ignoring
    /// any backoff in progress. Throws `flushIncomplete` when any of them is still journalled
    /// on return (server down, 503 after the retries, 401/403); rejected events are dropped,
    /// logged and counted in the result, never retried.
    public func flush() async throws(PushLedgerError) -> FlushResult {
        let lock = try await lock()
        defer { lock.unlock() }
        var result = FlushResult()
        result.droppedByCap = try journal.prune(
            maxEvents: configuration.maxJournalEvents, maxBytes: configuration.maxJournalBytes)
        if result.droppedByCap > 0 {
            configuration.logger.warning(
                "journal over its cap: oldest events dropped", ["dropped": result.droppedByCap])
        }
        let entries = journal.entries()
        var cursor = entries[...]
        var maxEvents = min(configuration.maxBatchEvents, configuration.limits.maxEventsPerRequest)
        var retry: [JournalEntry] = []
        while let batch = nextBatch(&retry, &cursor, maxEvents: maxEvents) {
            switch await uploader.deliver(batch) {
            case .stored(let accepted, let duplicates, let rejected):
                try journal.remove(batch.entries)
                result.accepted += accepted
                result.duplicates += duplicates
                report(rejected, into: &result)
            case .refused(let rejected):
                try journal.remove(batch.entries)
                report(rejected, into: &result)
            case .tooLarge(let code, let message) where batch.entries.count > 1:
                // The server's limits are lower than ours: halve the batches and send these again.
                maxEvents = max(1, batch.entries.count / 2)
                retry = batch.entries
                configuration.logger.warning(
                    "batch too large; splitting", ["events": batch.entries.count, "error": code, "message": message])
            case .tooLarge(let code, let message):
                try journal.remove(batch.entries)
                report(
                    batch.entries.map { RejectedEvent(eventID: $0.eventID, code: code, message: message) },
                    into: &result)
            case .failed(let failure, _, let retryAfter):
                backoff.failed(policy: configuration.retry, retryAfter: retryAfter)
                let remaining = entries.filter(journal.contains).count
                configuration.logger.warning(
                    "flush incomplete", ["remaining": remaining, "reason": failure.description])
                throw .flushIncomplete(remaining: remaining, reason: failure, partial: result)
            }
        }
        backoff.succeeded()
        return result
    }

    /// `flush()` unless an earlier failure's backoff (exponential with jitter, or the server's
    /// `Retry-After`) has not run out yet; then nil. For calls on every foreground or timer.
    public func flushIfDue(now: Date = Date()) async throws(PushLedgerError) -> FlushResult? {
        guard backoff.isDue(now) else { return nil }
        return try await flush()
    }

    /// Events journalled now, by every process on the directory.
    public var pendingCount: Int { journal.entries().count }

    /// Events the size cap has dropped since the directory was created.
    public var droppedCount: Int { journal.droppedCount }

    // MARK: Steps

    /// The contract's checks of one event, run before it is journalled (one definition: the server's).
    private func check(_ event: JSONValue) throws(PushLedgerError) {
        let body = TelemetryEnvelope(
            appID: configuration.appID, installationID: installationID, platform: configuration.platform
        )
        .jsonValue(events: [event]).serialized()
        let validated: ValidatedTelemetry
        do {
            validated = try TelemetryValidator.validate(
                body: body, keyAppID: configuration.appID, receivedAt: Date(), limits: configuration.limits)
        } catch {
            throw .invalidConfiguration(error.message)
        }
        if let rejection = validated.rejections.first {
            throw .invalidEvent(code: rejection.code.rawValue, message: rejection.message)
        }
    }

    /// The next request: entries to send again first, else consecutive entries of one context
    /// within the event and byte limits. Unreadable files (not a journal record) are removed.
    private func nextBatch(
        _ retry: inout [JournalEntry], _ cursor: inout ArraySlice<JournalEntry>, maxEvents: Int
    ) -> Batch? {
        var batch: Batch?
        let maxBytes = configuration.limits.maxBodyBytes - 1024  // room for the envelope
        func take(_ entry: JournalEntry) -> Bool {
            guard let (context, event) = journal.read(entry) else {
                if journal.contains(entry) {
                    configuration.logger.error("unreadable journal entry removed", ["entry": entry.name])
                    try? journal.remove([entry])
                }
                return true
            }
            if batch == nil { batch = Batch(context: context) }
            guard batch!.context == context, batch!.entries.count < maxEvents,
                batch!.bytes + entry.bytes <= maxBytes || batch!.entries.isEmpty
            else { return false }
            batch!.entries.append(entry)
            batch!.events.append(event)
            batch!.bytes += entry.bytes
            return true
        }
        while let entry = retry.first, take(entry) { retry.removeFirst() }
        if !retry.isEmpty { return batch }
        while let entry = cursor.first, take(entry) { cursor.removeFirst() }
        return batch
    }

    private func report(_ rejected: [RejectedEvent], into result: inout FlushResult) {
        for rejection in rejected {
            configuration.logger.warning(
                "event rejected by the server; dropped",
                [
                    "event_id": rejection.eventID?.uuidString.lowercased() ?? "-", "error": rejection.code,
                    "message": rejection.message,
                ])
        }
        result.rejected += rejected
    }

    /// The journal's flush lock: waits while another process or flush holds it (at most `lockWait`).
    private func lock() async throws(PushLedgerError) -> FileLock {
        let deadline = Date().addingTimeInterval(configuration.lockWait)
        while true {
            if let lock = try journal.tryLock() { return lock }
            guard Date() < deadline else {
                throw .flushIncomplete(remaining: pendingCount, reason: .busy, partial: FlushResult())
            }
            await uploader.sleep(0.02)
        }
    }
}

/// When the next automatic flush is due after failures (consecutive failures drive the backoff).
final class BackoffState: @unchecked Sendable {
    private let lock = NSLock()
    private var failures = 0
    private var notBefore = Date.distantPast

    func failed(policy: RetryPolicy, retryAfter: String?, now: Date = Date()) {
        lock.lock()
        defer { lock.unlock() }
        failures += 1
        notBefore = now.addingTimeInterval(
            policy.delay(afterAttempt: failures, retryAfter: retryAfter, random: Double.random(in: 0...1)))
    }

    func succeeded() {
        lock.lock()
        defer { lock.unlock() }
        failures = 0
        notBefore = .distantPast
    }

    func isDue(_ now: Date) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return now >= notBefore
    }
}
