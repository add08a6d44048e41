import PushLedgerSupport
import Synchronization

/// Whether a commit completes now, for `/readyz`. A reachable primary is not enough: with
/// strict synchronous replication, a primary without its standby (just promoted, or its
/// standby gone) accepts connections and statements but holds every COMMIT until a standby
/// confirms. So a probe commits a transaction of its own every `interval` (see
/// `IngestStore.probeCommit`: a commit record and nothing else, one connection of its own) and
/// the server is not ready while one has failed or has been waiting longer than `bound`.
///
/// Why a commit and not a look at `pg_stat_replication` or `synchronous_standby_names`: those
/// say what the server was told, a commit says what a writer gets — whatever the replication
/// settings, the failover manager or a lock in the way — for one round trip and one WAL flush a
/// second, no table and no migration.
final class CommitProbe: Sendable {
    private struct State {
        /// When the commit in progress began; nil between probes.
        var started: ContinuousClock.Instant?
        /// The last probe failed (cleared by a success or when the database comes back).
        var failed = false
    }

    private let state = Mutex(State())
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

    /// False while commits fail or wait past `bound`.
    var commitsComplete: Bool {
        let now = ContinuousClock.now
        return state.withLock { state in !state.failed && state.started.map { now - $0 <= bound } ?? true }
    }

    /// Forgets a failure: the reconnect probe found the database again (the next commit probe
    /// decides from there).
    func clearFailure() { state.withLock { $0.failed = false } }

    /// One probe commit; blocks as long as the commit does (run it on its own thread).
    func probe() {
        let clock = ContinuousClock()
        let started = clock.now
        state.withLock { $0.started = started }
        do throws(StoreError) {
            try store.probeCommit()
            let elapsed = clock.now - started
            let wasFailing = state.withLock { state in
                defer { state = State() }
                return state.failed
            }
            if elapsed > bound || wasFailing {
                logger.info("commits complete", ["probe_seconds": String(format: "%.2f", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)])
            }
        } catch {
            let wasFailing = state.withLock { state in
                defer { state = State(started: nil, failed: true) }
                return state.failed
            }
            if error.isConnectionProblem { health.set(up: false) }
            if !wasFailing { logger.warning("commit probe failed", ["error": error.description, "detail": error.debugDescription]) }
        }
    }
}
