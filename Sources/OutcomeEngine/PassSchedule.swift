import Foundation

/// When `pushledger rollup --follow` starts its next pass (docs/rollups.md "Following"). A pass
/// is due one period (half the freshness) after the last one started, so inputs arriving
/// without pause are rolled up in few, large passes (a send re-opened by several inputs is
/// judged once a pass, not once an input). It is due earlier once inputs wait and none has
/// been queued for `quiet` seconds: ingest paused or ended, and waiting longer would only add
/// lag. An early pass keeps a gap after the last one at least as long as that pass took, so
/// inputs trickling in one at a time cannot keep the refresh running more than about half the
/// time.
public struct PassSchedule: Sendable, Equatable {
    /// Seconds from one pass's start to the next's at the latest.
    public let period: TimeInterval
    /// Seconds without a newly queued input after which waiting inputs are rolled up at once.
    public let quiet: TimeInterval

    public init(period: TimeInterval, quiet: TimeInterval = 1) {
        self.period = period
        self.quiet = min(quiet, period)
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

        public init(
            sinceStart: TimeInterval, sinceEnd: TimeInterval, lastPassSeconds: TimeInterval, waiting: Bool,
            sinceQueueChanged: TimeInterval
        ) {
            self.sinceStart = sinceStart
            self.sinceEnd = sinceEnd
            self.lastPassSeconds = lastPassSeconds
            self.waiting = waiting
            self.sinceQueueChanged = sinceQueueChanged
        }
    }

    /// Whether the next pass starts now.
    public func isDue(_ seen: Observation) -> Bool {
        if seen.sinceStart >= period { return true }
        guard seen.waiting, seen.sinceEnd >= max(quiet, seen.lastPassSeconds) else { return false }
        return seen.sinceQueueChanged >= quiet
    }

    /// Seconds between looks at the queue: a quarter of the quiet interval, so a pass starts at
    /// most that long after the quiet interval has passed (a look each quiet interval could see
    /// the last input only at its next look and start up to two quiet intervals after it).
    public var look: TimeInterval { quiet / 4 }

    /// How long to wait before looking again: `look`, or less when the period ends sooner.
    public func nextLook(_ seen: Observation) -> TimeInterval {
        max(0.01, min(look, period - seen.sinceStart))
    }
}
