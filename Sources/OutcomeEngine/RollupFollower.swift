import Dispatch
import Foundation
import Postgres
import PushLedgerRules
import PushLedgerSupport
import Synchronization

/// `pushledger rollup --follow`: keeps the rollups within `freshness` of what was committed by
/// refreshing (``ReportRollups/refresh(connection:asOf:confirmationWindow:full:)``) every half
/// freshness, back to back when a pass takes longer, and at once when inputs wait and ingest has
/// paused (``PassSchedule``; docs/rollups.md "Following").
///
/// - One leader across processes: a session advisory lock, held for as long as the connection
///   lives. Another follower waits for it as a hot spare and takes over when the leader's
///   connection ends (exit, crash, failover).
/// - Nothing lives in memory that a restart needs: the queue and the last refresh are tables, and a
///   pass is one transaction, so one cut short by a lost connection or a kill leaves nothing.
/// - A lost connection is retried with capped exponential backoff; each change of state (leading,
///   standing by, database unreachable, behind, caught up) is one log line.
public final class RollupFollower: Sendable {
    /// What the follower is doing, for logs and metrics.
    public enum State: String, Sendable {
        case starting, leading, standby, unreachable, stopped
    }

    /// The advisory lock key the leader holds (`hashtext` of this name).
    public static let lockName = "pushledger_rollup_follow"
    /// The `application_name` of the follower's connection.
    public static let applicationName = "pushledger-rollup-follow"

    public let freshness: TimeInterval
    public let confirmationWindow: TimeInterval
    private let connect: @Sendable () throws -> Connection
    private let logger: Logger
    private let retry: RetryPolicy
    private let wake = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let shared = Mutex(Snapshot())

    /// What the follower last saw, for the metrics endpoint.
    public struct Snapshot: Sendable {
        public var state: State = .starting
        public var passes = 0
        public var failures = 0
        public var lastPassSeconds: Double?
        public var status: RollupStatus?
        /// When `status` was read.
        public var statusReadAt: Date?

        /// The lag now: the last read's, grown by the time since when something was waiting
        /// then (a follower that stopped passing, or a database gone, shows a growing lag).
        public func lagSeconds(now: Date = Date()) -> Double? {
            guard let status, let statusReadAt else { return nil }
            return status.lagSeconds > 0 ? status.lagSeconds + max(0, now.timeIntervalSince(statusReadAt)) : 0
        }
    }

    /// Seconds with nothing queued and no other transaction writing after which ingest counts as
    /// idle when the writers do not announce it.
    public let settle: TimeInterval

    /// `connect` opens a new connection to the primary (called again after each loss).
    public init(
        freshness: TimeInterval, confirmationWindow: TimeInterval = OutcomeRules.defaultConfirmationWindow,
        settle: TimeInterval = 0.25, logger: Logger,
        retry: RetryPolicy = RetryPolicy(maxAttempts: .max, baseDelay: 1, maxDelay: 30),
        connect: @escaping @Sendable () throws -> Connection
    ) {
        self.freshness = freshness
        self.settle = settle
        self.confirmationWindow = confirmationWindow
        self.logger = logger
        self.retry = retry
        self.connect = connect
    }

    /// Seconds from one pass's start to the next's at the latest: half the freshness, so an input
    /// committed just after a pass took the queue is rolled up within freshness while a pass takes
    /// less than half of it.
    public var period: TimeInterval { max(freshness / 2, 0.05) }

    /// When a pass starts: at the latest a period after the last one, sooner once ingest has
    /// gone idle (no other transaction writing, and the writers announced it or nothing was
    /// queued for `settle`) or paused for a tenth of the period (at least a second): 3 s at the
    /// default freshness.
    public var schedule: PassSchedule { PassSchedule(period: period, quiet: max(1, period / 10), settle: settle) }

    public var snapshot: Snapshot { shared.withLock { $0 } }

    /// Ends `run` after the pass in progress (if any) commits; safe from a signal handler's queue.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        wake.signal()
    }

    private var stopped: Bool { stopping.load(ordering: .acquiring) }

    /// Sleeps up to `seconds`; false when stopped meanwhile.
    private func pause(_ seconds: TimeInterval) -> Bool {
        guard !stopped else { return false }
        if seconds > 0 { _ = wake.wait(timeout: .now() + seconds) }
        if stopped { wake.signal() }
        return !stopped
    }

    private func enter(_ state: State, _ fields: KeyValuePairs<String, CustomStringConvertible> = [:]) {
        let previous = shared.withLock { snapshot in
            defer { snapshot.state = state }
            return snapshot.state
        }
        guard previous != state else { return }
        let message: String =
            switch state {
            case .leading: "rollup follower leading: refreshing"
            case .standby: "rollup follower standing by: another follower holds the lock"
            case .unreachable: "rollup follower cannot refresh (database unreachable or the pass failed), retrying"
            case .stopped: "rollup follower stopped"
            case .starting: "rollup follower starting"
            }
        logger.log(state == .unreachable ? .warning : .info, message, fields)
    }

    /// Runs until ``stop()``: connects, waits for the lock, refreshes every ``period``.
    public func run() {
        logger.info("rollup follower starting", ["freshness_s": seconds(freshness), "period_s": seconds(period)])
        var failures = 0
        while !stopped {
            do {
                let connection = try connect()
                try follow(connection)
                failures = 0
            } catch {
                failures += 1
                shared.withLock { $0.failures += 1 }
                let delay = retry.delay(afterAttempt: failures, retryAfter: nil, random: Double.random(in: 0...1))
                let detail = (error as? ReportError)?.debugDescription ?? String(describing: error)
                enter(.unreachable, ["error": detail, "retry_in_s": seconds(delay)])
                if failures > 1 {
                    logger.debug("still unreachable", ["attempt": failures, "retry_in_s": seconds(delay)])
                }
                _ = pause(delay)
            }
        }
        enter(.stopped)
    }

    /// Leads (or waits to lead) on one connection until it fails or the follower stops.
    private func follow(_ connection: Connection) throws {
        // A follower killed mid-pass leaves its backend running until it notices; this makes it
        // notice within a second and roll back, releasing the lock for the spare.
        _ = try connection.execute(
            """
            select set_config('application_name', \(Self.applicationName), false), \
            set_config('client_connection_check_interval', '1s', false)
            """
        )
        while !stopped {
            let held: Bool = try connection.query("select pg_try_advisory_lock(hashtext(\(Self.lockName))) as held")[0]
                .decode("held")
            if held { break }
            observe(try RollupStatus.read(connection: connection))
            enter(.standby)
            guard pause(min(period, 5)) else { return }
        }
        guard !stopped else { return }
        enter(.leading)
        // Opened now, so that a pass finds it ready; a pass without it classifies on one connection.
        let second = SecondConnection(connect: connect)
        do { try second.open() } catch {
            logger.warning("no second connection; passes classify on one", ["error": String(describing: error)])
        }
        let channel: String = try connection.query("select pushledger_ingest_idle_channel() as channel")[0].decode(
            "channel")
        try connection.listen(channel)
        var behind = false
        var trigger = "start"
        while !stopped {
            let started = Date()
            let pass = Result { () throws(ReportError) in
                try ReportRollups.refresh(
                    connection: connection, asOf: Date(), confirmationWindow: confirmationWindow,
                    // The follower's first pass ("start") uses it too.
                    secondConnection: PassSchedule.Trigger(rawValue: trigger)?.usesSecondConnection ?? true
                        ? second : nil)
            }
            if case .failure(let error) = pass, error.isTransient {
                // Chosen as a deadlock's victim beside ingest: rolled back whole; again at once.
                shared.withLock { $0.failures += 1 }
                logger.warning("rollup pass rolled back, running it again", ["error": error.debugDescription])
                usleep(UInt32.random(in: 20_000...200_000))
                continue
            }
            let summary = try pass.get()
            let took = Date().timeIntervalSince(started)
            let status = try RollupStatus.read(connection: connection)
            observe(status)
            shared.withLock {
                $0.passes += 1
                $0.lastPassSeconds = took
            }
            logger.info(
                "rollup pass",
                [
                    "sends": summary.reclassifiedSends, "days": summary.days.count,
                    "prompt_cohort_days": summary.promptCohortDays,
                    "full": summary.full, "seconds": seconds(took), "lag_s": seconds(status.lagSeconds),
                    "pending_inputs": status.pendingInputs, "trigger": trigger,
                    "second_connection_sends": summary.secondConnectionSends,
                ])
            if let failure = summary.secondConnectionFailure {
                logger.warning(
                    "second connection failed; its whole days were classified on the first", ["error": failure])
            }
            if (status.lagSeconds > freshness) != behind {
                behind.toggle()
                if behind {
                    logger.warning(
                        "rollup follower behind: the lag exceeds the freshness", ["lag_s": seconds(status.lagSeconds)])
                } else {
                    logger.info("rollup follower within freshness again", ["lag_s": seconds(status.lagSeconds)])
                }
            }
            // Between passes the status is read every `schedule.look` seconds: the metrics stay
            // current, and the next pass starts as soon as the schedule says it is due.
            // A look comes early when the writers announce that ingest went idle.
            let ended = Date()
            var queued = status.pendingInputs, queueChanged = ended, writing = true, announced = false
            while !stopped {
                let now = Date()
                let seen = PassSchedule.Observation(
                    sinceStart: now.timeIntervalSince(started), sinceEnd: now.timeIntervalSince(ended),
                    lastPassSeconds: took, waiting: (snapshot.status?.lagSeconds ?? 0) > 0,
                    sinceQueueChanged: now.timeIntervalSince(queueChanged), othersWriting: writing,
                    idleAnnounced: announced, lastWasAnnounced: trigger == PassSchedule.Trigger.announced.rawValue)
                if let due = schedule.trigger(seen) {
                    trigger = due.rawValue
                    break
                }
                let heard = try !connection.waitForNotifications(
                    timeout: .milliseconds(Int(schedule.nextLook(seen) * 1000))
                ).isEmpty
                guard !stopped else { break }
                let current = try RollupStatus.read(connection: connection)
                observe(current)
                writing = try othersWriting(connection)
                // The announcement follows the writers' last commit: a change seen with it is
                // one of theirs; a change seen later is ingest going on.
                if current.pendingInputs != queued {
                    queued = current.pendingInputs
                    queueChanged = Date()
                    announced = false
                }
                if heard { announced = true }
            }
        }
        _ = try? connection.query("select pg_advisory_unlock(hashtext(\(Self.lockName)))")
    }

    /// Whether another session of this database is in a transaction that has written (it holds
    /// a transaction id), or is one whose activity this login may not see: ingest goes on.
    private func othersWriting(_ connection: Connection) throws -> Bool {
        try connection.query(
            """
            select exists (select 1 from pg_stat_activity where datname = current_database() \
            and pid <> pg_backend_pid() and backend_type = 'client backend' \
            and (backend_xid is not null or state is null)) as writing
            """
        )[0].decode("writing")
    }

    private func observe(_ status: RollupStatus) {
        shared.withLock {
            $0.status = status
            $0.statusReadAt = Date()
        }
    }
}

/// Seconds with millisecond precision, for log fields.
private func seconds(_ value: TimeInterval) -> String { String(format: "%.3f", value) }
