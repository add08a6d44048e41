import Foundation
import Postgres
import PushLedgerSupport

/// Keeps the event tables to a number of days: drops whole partitions (monthly or daily) whose last
/// instant is older than the cutoff, and deletes older rows from the default partitions, the
/// de-duplication ledger and the failed-event store (sql/retention/retention.sql). Rollups are kept.
public struct Retention: Sendable {
    /// Something retention removed.
    public struct Removal: Sendable, Equatable {
        public enum Kind: String, Sendable { case partition, rows }
        /// A partition's name, or the table rows were deleted from.
        public var object: String
        public var kind: Kind
        /// Rows deleted (nil for a dropped partition).
        public var rowCount: Int?

        public init(object: String, kind: Kind, rowCount: Int?) {
            self.object = object
            self.kind = kind
            self.rowCount = rowCount
        }
    }

    public let days: Int

    /// How far ahead `retention --ensure-ahead` creates partitions: this month and the next
    /// three, so a cron run monthly always stays ahead of the writer.
    public static let partitionsAhead = TimeSpan.days(92)

    /// Keeps `days` days. Keep it above the contract's 30-day `too_old` limit so a retried
    /// event can't outlive its de-duplication key.
    public init(days: Int) {
        self.days = days
    }

    /// Applies retention as of `now`; returns what was dropped or deleted.
    @discardableResult
    public func apply(now: Date = Date(), on connection: Connection) throws -> [Removal] {
        let cutoff = now.addingTimeInterval(-Double(days) * 86_400)
        return try connection.transaction { connection in
            try connection.query("select object, kind, row_count from pushledger_apply_retention(\(cutoff))").map {
                row in
                Removal(
                    object: try row.decode("object"),
                    kind: Removal.Kind(rawValue: try row.decode("kind")) ?? .rows,
                    rowCount: try row.decode("row_count", as: Int?.self))
            }
        }
    }

    /// Creates the partitions (of the configured `PartitionGranularity`) covering [from, to]
    /// ahead of time (the writer does it for the ones it sees; cron can call this for the
    /// next ones). Returns their names.
    @discardableResult
    public static func ensurePartitions(from: Date, to: Date, on connection: Connection) throws -> [String] {
        try connection.query("select p from pushledger_ensure_partitions(\(from), \(to)) p").map { try $0.decode("p") }
    }
}
