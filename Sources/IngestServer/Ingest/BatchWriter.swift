import Foundation
import PushLedgerContract
import PushLedgerSupport
import Synchronization

/// Whether Postgres answered lately. Writers mark it down on a connection error; the
/// maintenance loop marks it up when a probe succeeds.
final class DatabaseHealth: Sendable {
    private let up = Atomic<Bool>(false)
    var isUp: Bool { up.load(ordering: .acquiring) }
    /// Sets the state; returns the previous one.
    @discardableResult
    func set(up value: Bool) -> Bool { up.exchange(value, ordering: .acquiringAndReleasing) }
}

/// When the writers apply the derived state they deferred (`IngestStore.applyDerived`): a batch
/// that was already waiting when its writer looked (the writers were busy) defers it; a writer
/// that has found the queue empty for a moment (`IngestQueue`'s idle wait) applies what is
/// queued, and so does one that has deferred `limit` batches since (under load that never
/// lets up, at most that many batches wait). A batch its writer waited for (light load)
/// applies its own in its transaction. Going idle after writing is also announced to the rollup
/// follower (`IngestStore.wentIdle`), in the same transaction.
final class DerivedStateSchedule: Sendable {
    /// Batches deferred since the last application; 1 at start, so leftovers of a server that
    /// stopped without applying them are applied at the first chance.
    private let deferred = Atomic<Int>(1)
    /// Whether a batch was written since the writers last went idle (and announced it).
    private let wrote = Atomic<Bool>(false)
    let limit: Int
    let enabled: Bool

    init(enabled: Bool, limit: Int) {
        self.enabled = enabled
        self.limit = max(1, limit)
    }

    /// Notes a deferred batch; true when the limit is reached.
    func noteDeferred() -> Bool { deferred.add(1, ordering: .relaxed).newValue >= limit }

    /// Whether anything may wait; clears the count (one caller applies, the others skip).
    func take() -> Bool { deferred.exchange(0, ordering: .acquiringAndReleasing) > 0 }

    /// An application failed: what it did not apply is still queued.
    func restore() { deferred.add(1, ordering: .relaxed) }

    /// Notes a batch written.
    func noteWritten() { wrote.store(true, ordering: .relaxed) }

    /// Whether a batch was written since the last call.
    func takeWritten() -> Bool { wrote.exchange(false, ordering: .acquiringAndReleasing) }
}

/// Stores batches of jobs through an `IngestStore` and answers every job of the batch.
struct BatchWriter: Sendable {
    let store: any IngestStore
    let health: DatabaseHealth
    let metrics: ServerMetrics
    let logger: Logger
    /// Off unless the server turns it on: a batch then applies its own derived state.
    var derived = DerivedStateSchedule(enabled: false, limit: 1)

    /// `write` for a batch its writer did or did not have to wait for: see `DerivedStateSchedule`.
    func write(_ jobs: [IngestJob], waited: Bool) {
        let deferring = !waited && derived.enabled && store.defersDerived
        write(jobs, deferringDerived: deferring)
        derived.noteWritten()
        guard deferring else { return }
        metrics.derivedDeferred.increment([])
        if derived.noteDeferred() { applyDerived(idle: false) }
    }

    /// The writers' idle work, once their queue has stayed empty: applies what deferred batches
    /// queued, if any may wait, and announces that ingest went idle, if anything was written.
    func wentIdle() { applyDerived(idle: true) }

    private func applyDerived(idle: Bool) {
        guard health.isUp else { return }
        let applying = derived.enabled && derived.take()
        let announcing = idle && derived.takeWritten()
        guard applying || announcing else { return }
        do throws(StoreError) {
            let applied = try announcing ? store.wentIdle() : store.applyDerived()
            metrics.derivedApplied.increment([], by: Double(applied))
        } catch {
            if applying { derived.restore() }
            metrics.recordDatabaseError(error)
            logger.warning(
                "derived state not applied; it stays queued",
                ["sqlstate": error.sqlState ?? "none", "error": error.debugDescription])
        }
    }

    /// One transaction for the whole batch (one statement that commits as it ends). A
    /// connection problem fails the batch with 503: `unavailable` (nothing was committed) when
    /// the batch was never sent, `outcomeUnknown` when it broke while the statement ran. Any
    /// other error splits the batch in halves and writes each, so one bad unit among n costs
    /// at most 1 + 2·log₂(n) transactions and the others are stored.
    /// A unit that fails alone is quarantined: its request goes to the failed-event store and
    /// is answered 400 `unstorable`, never 500 (the SDK would retry it forever).
    /// Dry runs each get a transaction of their own that is rolled back, so neither they nor the
    /// real requests of the batch see each other's events.
    func write(_ jobs: [IngestJob], deferringDerived: Bool = false) {
        let stored = jobs.filter { !$0.dryRun }
        for group in byShard(stored) { write(group, dryRun: false, deferringDerived: deferringDerived) }
        for job in jobs where job.dryRun { write([job], dryRun: true) }
    }

    /// The jobs in groups of one shard each, in order of first appearance (one group when a
    /// single database holds every app): a transaction never spans two databases.
    private func byShard(_ jobs: [IngestJob]) -> [[IngestJob]] {
        var groups: [String: [IngestJob]] = [:], order: [String] = []
        for job in jobs {
            let shard = store.route(app: job.app) ?? ""
            if groups[shard] == nil { order.append(shard) }
            groups[shard, default: []].append(job)
        }
        return order.map { groups[$0]! }
    }

    private func write(_ jobs: [IngestJob], dryRun: Bool, deferringDerived: Bool = false) {
        guard health.isUp else {
            for job in jobs { job.completion(.failure(.unavailable)) }
            return
        }
        let clock = ContinuousClock()
        let started = clock.now
        do throws(StoreError) {
            let outcomes =
                dryRun
                ? try store.dryRun(jobs.map(\.unit))
                : try store.write(jobs.map(\.unit), deferringDerived: deferringDerived)
            guard outcomes.count == jobs.count else {
                throw StoreError(
                    isConnectionProblem: false,
                    description: "writer returned \(outcomes.count) outcomes for \(jobs.count) units")
            }
            let elapsed = clock.now - started
            metrics.commitSeconds.observe(
                Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds))
            metrics.batchUnits.observe(Double(jobs.count))
            metrics.batchEvents.observe(Double(jobs.reduce(0) { $0 + $1.unit.eventCount }))
            for (job, outcome) in zip(jobs, outcomes) {
                if !dryRun { metrics.recordStored(job.unit, outcome: outcome) }
                job.completion(.success(outcome))
            }
        } catch {
            metrics.recordDatabaseError(error)
            // A shard's problem is its apps' alone: the store retries that shard by itself.
            if error.isConnectionProblem, store.route(app: jobs[0].app) != nil {
                for job in jobs { job.completion(.failure(error.isOutcomeUnknown ? .outcomeUnknown : .unavailable)) }
            } else if error.isConnectionProblem {
                if health.set(up: false) {
                    logger.error(
                        "database unreachable", ["error": error.description, "detail": error.debugDescription])
                }
                let failure: WriteFailure = error.isOutcomeUnknown ? .outcomeUnknown : .unavailable
                if error.isOutcomeUnknown {
                    logger.warning(
                        "commit outcome unknown", ["requests": "\(jobs.count)", "error": error.debugDescription])
                }
                for job in jobs { job.completion(.failure(failure)) }
            } else if jobs.count > 1 {
                logger.warning(
                    "batch failed, writing it in halves",
                    ["requests": "\(jobs.count)", "error": error.debugDescription])
                metrics.batchSplits.increment([])
                let half = jobs.count / 2
                write(Array(jobs[..<half]), dryRun: dryRun)
                write(Array(jobs[half...]), dryRun: dryRun)
            } else {
                quarantine(jobs[0], error, dryRun: dryRun)
            }
        }
    }

    /// Stores `job`'s request in the failed-event store in place of its unit and answers 400.
    /// A dry run is answered the same without storing anything.
    private func quarantine(_ job: IngestJob, _ error: StoreError, dryRun: Bool) {
        logger.warning(
            "request quarantined",
            ["app": job.app, "sqlstate": error.sqlState ?? "none", "error": error.debugDescription])
        let refusal = EnvelopeError.unstorable(sqlState: error.sqlState)
        guard !dryRun, let unit = job.unit.quarantined(refusal, body: job.body) else {
            return job.completion(dryRun ? .failure(.quarantined(refusal)) : .failure(.failed))
        }
        do throws(StoreError) {
            _ = try store.write([unit])
            metrics.quarantined.increment([])
            job.completion(.failure(.quarantined(refusal)))
        } catch {
            metrics.recordDatabaseError(error)
            if error.isConnectionProblem {
                if store.route(app: job.app) == nil { health.set(up: false) }
                return job.completion(.failure(.unavailable))
            }
            logger.error("quarantine failed", ["sqlstate": error.sqlState ?? "none", "error": error.debugDescription])
            job.completion(.failure(.failed))
        }
    }
}

extension EnvelopeError {
    /// A request whose valid unit the database refused even alone (a bug or a limit of
    /// storage the validators do not know yet). The same bytes get the same answer.
    static func unstorable(sqlState: String?) -> EnvelopeError {
        EnvelopeError(
            status: 400, code: "unstorable",
            message: "the request passed validation but could not be stored (SQLSTATE \(sqlState ?? "none")); "
                + "it is kept in the failed-event store")
    }
}

extension IngestUnit {
    /// The failed-event row that stands for this unit's request: nil for a failed request
    /// itself (its row is what failed).
    func quarantined(_ refusal: EnvelopeError, body: [UInt8]) -> IngestUnit? {
        let endpoint: IngestEndpoint, appID: String, receivedAt: Date, subject: FailedSubject
        switch self {
        case .telemetry(let validated, let at):
            (endpoint, appID, receivedAt) = (.telemetry, validated.envelope.appID, at)
            subject = FailedSubject(installationID: validated.envelope.installationID)
        case .sends(let validated, let app, let at):
            (endpoint, appID, receivedAt) = (.sends, app, at)
            // A request of many sends may name many tokens: the first, and the raw-text fallback for the rest.
            subject = FailedSubject(
                installationID: validated.sends.first?.installationID, token: validated.sends.first?.token)
        case .failedRequest:
            return nil
        }
        return .failedRequest(
            endpoint: endpoint, appID: appID, code: refusal.code, message: refusal.message,
            rawBody: FailedText(body[...]),
            receivedAt: receivedAt, subject: subject)
    }
}
