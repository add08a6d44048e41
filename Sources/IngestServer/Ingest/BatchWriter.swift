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

/// Stores batches of jobs through an `IngestStore` and answers every job of the batch.
struct BatchWriter: Sendable {
    let store: any IngestStore
    let health: DatabaseHealth
    let metrics: ServerMetrics
    let logger: Logger

    /// One transaction for the whole batch. A connection problem fails the batch with 503:
    /// `unavailable` (nothing was committed) when it broke before COMMIT, `outcomeUnknown` when
    /// it broke during COMMIT. Any other error retries each job alone, so one bad unit costs
    /// only its own request a 500.
    /// Dry runs each get a transaction of their own that is rolled back, so neither they nor the
    /// real requests of the batch see each other's events.
    func write(_ jobs: [IngestJob]) {
        let stored = jobs.filter { !$0.dryRun }
        if !stored.isEmpty { write(stored, dryRun: false) }
        for job in jobs where job.dryRun { write([job], dryRun: true) }
    }

    private func write(_ jobs: [IngestJob], dryRun: Bool) {
        guard health.isUp else {
            for job in jobs { job.completion(.failure(.unavailable)) }
            return
        }
        let clock = ContinuousClock()
        let started = clock.now
        do throws(StoreError) {
            let outcomes = dryRun ? try store.dryRun(jobs.map(\.unit)) : try store.write(jobs.map(\.unit))
            guard outcomes.count == jobs.count else {
                throw StoreError(isConnectionProblem: false, description: "writer returned \(outcomes.count) outcomes for \(jobs.count) units")
            }
            let elapsed = clock.now - started
            metrics.commitSeconds.observe(Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds))
            metrics.batchUnits.observe(Double(jobs.count))
            metrics.batchEvents.observe(Double(jobs.reduce(0) { $0 + $1.unit.eventCount }))
            for (job, outcome) in zip(jobs, outcomes) {
                if !dryRun { metrics.recordStored(job.unit, outcome: outcome) }
                job.completion(.success(outcome))
            }
        } catch {
            metrics.recordDatabaseError(error)
            if error.isConnectionProblem {
                if health.set(up: false) {
                    logger.error("database unreachable", ["error": error.description, "detail": error.debugDescription])
                }
                let failure: WriteFailure = error.isOutcomeUnknown ? .outcomeUnknown : .unavailable
                if error.isOutcomeUnknown {
                    logger.warning("commit outcome unknown", ["requests": "\(jobs.count)", "error": error.debugDescription])
                }
                for job in jobs { job.completion(.failure(failure)) }
            } else if jobs.count > 1 {
                logger.warning("batch failed, writing its requests one by one", ["requests": "\(jobs.count)", "error": error.debugDescription])
                for job in jobs { write([job], dryRun: dryRun) }
            } else {
                logger.error("write failed", ["sqlstate": error.sqlState ?? "none", "error": error.debugDescription])
                jobs[0].completion(.failure(.failed))
            }
        }
    }
}
