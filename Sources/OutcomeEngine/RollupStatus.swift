import Foundation
import Postgres
import PushLedgerSupport

/// How fresh the rollups are (`pushledger_rollup_status()`, sql/engine/rollup_status.sql): every
/// report that reads them says so, and `pushledger rollup --follow` exports the lag. Reports
/// never refresh them: `pushledger rollup --follow` does (docs/operations/README.md).
public struct RollupStatus: Sendable, Equatable {
    /// The time the rollups classify as of; nil: never refreshed.
    public var asOf: Date?
    /// When that refresh ran.
    public var refreshedAt: Date?
    /// Input changes (queued statements and days marked dirty) the next `pushledger rollup` will take.
    public var pendingInputs: Int
    /// Seconds since the oldest committed input not yet rolled up could have been rolled up
    /// (0: caught up): what the follower's freshness bounds.
    public var lagSeconds: Double = 0
    /// How long the last refresh's transaction ran; nil: never recorded.
    public var lastPassSeconds: Double? = nil

    public init(
        asOf: Date?, refreshedAt: Date?, pendingInputs: Int, lagSeconds: Double = 0, lastPassSeconds: Double? = nil
    ) {
        self.asOf = asOf
        self.refreshedAt = refreshedAt
        self.pendingInputs = pendingInputs
        self.lagSeconds = lagSeconds
        self.lastPassSeconds = lastPassSeconds
    }

    /// Reads the status; only reads, so a read-only login or a hot standby can.
    public static func read(connection: Connection) throws(ReportError) -> RollupStatus {
        try databaseStep("reading the rollups' freshness") {
            // `*`: a database not migrated yet (before 0012) has no lag columns.
            let row = try connection.query("select * from pushledger_rollup_status()")[0]
            return RollupStatus(
                asOf: try row.decode("as_of"), refreshedAt: try row.decode("refreshed_at"),
                pendingInputs: try row.decode("pending_inputs"),
                lagSeconds: (try? row.decode("lag_seconds", as: Double.self)) ?? 0,
                lastPassSeconds: (try? row.decode("last_pass_seconds", as: Double?.self)) ?? nil)
        }
    }

    /// The advice a report gives when there are no rollups to read.
    public static let neverRefreshedAdvice = "rollups never refreshed: run `pushledger rollup`"

    /// "rollups as of <time> (refreshed <time>), N input changes not yet rolled up", or the advice
    /// to run `pushledger rollup`.
    public var text: String {
        guard let asOf else { return Self.neverRefreshedAdvice }
        let refreshed = refreshedAt.map { " (refreshed \(Timestamp.rfc3339($0)))" } ?? ""
        let pending = "\(pendingInputs) input change\(pendingInputs == 1 ? "" : "s") not yet rolled up"
        return "rollups as of \(Timestamp.rfc3339(asOf))\(refreshed), \(pending)"
    }

    /// `rollups_as_of`, `rollups_refreshed_at` (null: never refreshed) and `pending_inputs`.
    public var jsonFields: [(String, JSONValue)] {
        [
            ("rollups_as_of", .text(asOf.map(Timestamp.rfc3339))),
            ("rollups_refreshed_at", .text(refreshedAt.map(Timestamp.rfc3339))),
            ("pending_inputs", .int(pendingInputs)),
        ]
    }
}

extension RollupStatus {
    /// The freshness of several databases' rollups read together (the shards of a fleet-wide
    /// report): as of the oldest refresh, never refreshed if one never was, every shard's
    /// pending inputs, the largest lag.
    public static func combined(_ statuses: [RollupStatus]) -> RollupStatus {
        let never = statuses.isEmpty || statuses.contains { $0.asOf == nil }
        return RollupStatus(
            asOf: never ? nil : statuses.compactMap(\.asOf).min(),
            refreshedAt: never ? nil : statuses.compactMap(\.refreshedAt).min(),
            pendingInputs: statuses.map(\.pendingInputs).reduce(0, +),
            lagSeconds: statuses.map(\.lagSeconds).max() ?? 0,
            lastPassSeconds: statuses.compactMap(\.lastPassSeconds).max())
    }
}
