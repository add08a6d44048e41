import Foundation
import PushLedgerSupport

/// Whether a commit completes now, for `/readyz`. A reachable primary is not enough: with
/// strict synchronous replication, a primary without its standby (just promoted, or its
/// standby gone) accepts connections and statements but holds every COMMIT until a standby
/// confirms. So a probe commits a transaction of its own every interval (see
/// `IngestStore.probeCommit`: a WAL message and its commit, on a connection of its own) and
/// the server is ready only once a probe commit has completed since the database was last
/// lost, and while none has been waiting longer than `bound`.
///
/// Why a commit and not a look at `pg_stat_replication` or `synchronous_standby_names`: those
/// say what the server was told, a commit says what a writer gets — whatever the replication
/// settings, the failover manager or a lock in the way — for one round trip and one WAL flush a
/// second, with no table and no migration.
final class CommitProbe: Sendable {
    private let condition = NSCondition()
    /// When the commit in progress began; nil between probes.
    nonisolated(unsafe) private var started: ContinuousClock.Instant?
    /// No probe commit has completed since start or since the last failure.
    nonisolated(unsafe) private var failed = true
    /// Probes finished, either way.
    nonisolated(unsafe) private var finished = 0
    private let store: any IngestStore
    private let health: DatabaseHealth
    private let logger: Logger
    let bound: Duration

    init(store: any IngestStore, health: DatabaseHealth, bound: Duration, logger: Logger) {
        self.store = store
        self.health = health
        self.bound = bound
        self.logger = logger
    }

    /// True once a probe commit completed, and while none fails or waits past `bound`.
    var commitsComplete: Bool {
        let now = ContinuousClock.now
        return condition.withLock { !failed && started.map { now - $0 <= bound } ?? true }
    }

    /// Probes finished so far (pass to `waitForProbe(after:)`).
    var probesFinished: Int { condition.withLock { finished } }

    /// Waits until a probe after the `count`th has finished, at most `bound`: a caller that
    /// just woke the probe sees its answer when commits are quick, and is not held by one that hangs.
    func waitForProbe(after count: Int) {
        let deadline = Date(
            timeIntervalSinceNow: Double(bound.components.seconds) + Double(bound.components.attoseconds) / 1e18)
        condition.withLock { while finished <= count && condition.wait(until: deadline) {} }
    }

    /// One probe commit; blocks as long as the commit does (run it on its own thread).
    func probe() {
        let clock = ContinuousClock()
        let begun = clock.now
        condition.withLock { started = begun }
        var failure: StoreError?
        do throws(StoreError) { try store.probeCommit() } catch { failure = error }
        let elapsed = clock.now - begun
        let wasFailing = condition.withLock {
            defer {
                started = nil
                failed = failure != nil
                finished += 1
                condition.broadcast()
            }
            return failed
        }
        if let failure {
            if failure.isConnectionProblem { health.set(up: false) }
            if !wasFailing {
                logger.warning(
                    "commit probe failed", ["error": failure.description, "detail": failure.debugDescription])
            }
        } else if wasFailing || elapsed > bound {
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            logger.info("commits complete", ["probe_seconds": String(format: "%.2f", seconds)])
        }
    }
}
