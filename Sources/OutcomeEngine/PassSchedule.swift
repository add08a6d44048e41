import Foundation

/// When `pushledger rollup --follow` starts its next pass (docs/rollups.md "Following"). A pass
/// is due one period (half the freshness) after the last one started, so inputs arriving
/// without pause are rolled up in few, large passes (a send re-opened by several inputs is
/// judged once a pass, not once an input). It is due earlier once inputs wait and ingest has
/// gone idle: no other transaction is writing and either the writers announced it (their queue
/// stayed empty) or nothing has been queued for `settle` seconds; or nothing has been queued for
/// `quiet` seconds whatever the rest of the database does. A pass started on the writers'
/// announcement is followed by one more a settle interval after it ends, whatever waits: the
/// announcement can come before the last clients have read their answers, and the second pass
/// is one that began after them.
/// Waiting longer would only add lag. An early pass keeps a gap after the last one at least as
/// long as that pass took and as the quiet interval, so inputs trickling in one at a time cannot
/// keep the refresh running more than about half the time.
public struct PassSchedule: Sendable, Equatable {
    /// Seconds from one pass's start to the next's at the latest.
    public let period: TimeInterval
    /// Seconds without a newly queued input after which waiting inputs are rolled up at once.
    public let quiet: TimeInterval
    /// Seconds without a newly queued input, and no other transaction writing, after which
    /// ingest counts as idle: two looks apart, so one look between two commits cannot pass for it.
    public let settle: TimeInterval

    public init(period: TimeInterval, quiet: TimeInterval = 1, settle: TimeInterval = 0.25) {
        self.period = period
        self.quiet = min(quiet, period)
        self.settle = min(settle, self.quiet)
    }

    /// What the follower knows between passes.
    public struct Observation: Sendable, Equatable {
        /// Seconds since the last pass started and since it ended (committed).
        public var sinceStart: TimeInterval
        public var sinceEnd: TimeInterval
        /// How long the last pass took.
        public var lastPassSeconds: TimeInterval
        /// Whether an input is due and waits (`pushledger_rollup_status().lag_seconds > 0`).
        public var waiting: Bool
        /// Seconds since the count of queued inputs last changed, or since the last pass ended
        /// when it has not changed since.
        public var sinceQueueChanged: TimeInterval
        /// Whether another transaction was writing at the last look (true when unknown).
        public var othersWriting: Bool
        /// Whether the writers announced that ingest went idle since the queue last changed
        /// (`pushledger_announce_ingest_idle`).
        public var idleAnnounced: Bool
        /// Whether the last pass started on that announcement.
        public var lastWasAnnounced: Bool

        public init(
            sinceStart: TimeInterval, sinceEnd: TimeInterval, lastPassSeconds: TimeInterval, waiting: Bool,
            sinceQueueChanged: TimeInterval, othersWriting: Bool = true, idleAnnounced: Bool = false,
            lastWasAnnounced: Bool = false
        ) {
            self.sinceStart = sinceStart
            self.sinceEnd = sinceEnd
            self.lastPassSeconds = lastPassSeconds
            self.waiting = waiting
            self.sinceQueueChanged = sinceQueueChanged
            self.othersWriting = othersWriting
            self.idleAnnounced = idleAnnounced
            self.lastWasAnnounced = lastWasAnnounced
        }
    }

    /// Why a pass starts (its log line says).
    public enum Trigger: String, Sendable {
        case period, quiet, announced = "announced_idle", settled, confirmation

        /// Whether a pass so started classifies on a second connection too (docs/rollups.md "Two
        /// connections"): not one due by the period, which runs while ingest goes on and would
        /// take the core ingest is using; every other starts once ingest paused or ended.
        public var usesSecondConnection: Bool { self != .period }
    }

    /// Why the next pass starts now; nil: not yet.
    public func trigger(_ seen: Observation) -> Trigger? {
        if seen.sinceStart >= period { return .period }
        if seen.lastWasAnnounced && seen.sinceEnd >= settle { return .confirmation }
        guard seen.waiting, seen.sinceEnd >= max(quiet, seen.lastPassSeconds) else { return nil }
        if seen.sinceQueueChanged >= quiet { return .quiet }
        guard !seen.othersWriting else { return nil }
        if seen.idleAnnounced { return .announced }
        return seen.sinceQueueChanged >= settle ? .settled : nil
    }

    /// Whether the next pass starts now.
    public func isDue(_ seen: Observation) -> Bool { trigger(seen) != nil }

    /// Seconds between looks at the queue: half the settle interval, so a pass starts at most
    /// that long after ingest went idle (a look each settle interval could see the last input
    /// only at its next look and start up to two settle intervals after it).
    public var look: TimeInterval { settle / 2 }

    /// How long to wait before looking again: `look`, or less when the period ends sooner.
    public func nextLook(_ seen: Observation) -> TimeInterval {
        max(0.01, min(look, period - seen.sinceStart))
    }
}
