import Foundation
import Postgres
import PushLedgerRules
import PushLedgerSupport
import TableRendering

/// `pushledger rollup`: the incremental refresh of the daily rollups the reports read
/// (send outcomes and rejections from sql/engine/rollups.sql, tap-through landing from
/// sql/engine/landings.sql, prompt cohorts from sql/engine/prompt_rollups.sql), or their
/// rebuild from scratch (docs/rollups.md).
public enum ReportRollups {
    /// What a refresh recomputed.
    public struct Summary: Sendable, Equatable {
        /// Recomputed (app, UTC day "YYYY-MM-DD") pairs, in order.
        public var days: [(app: String, day: String)]
        /// Recomputed (app, experiment or as-treated, day) prompt-cohort rollups.
        public var promptCohortDays: Int
        public var asOf: Date
        /// Sends whose outcome the refresh judged again (every send, for a rebuild).
        public var reclassifiedSends: Int = 0
        /// Whether everything was recomputed from scratch.
        public var full: Bool = false

        public static func == (lhs: Summary, rhs: Summary) -> Bool {
            lhs.asOf == rhs.asOf && lhs.promptCohortDays == rhs.promptCohortDays
                && lhs.reclassifiedSends == rhs.reclassifiedSends
                && lhs.full == rhs.full
                && lhs.days.map { "\($0.app) \($0.day)" } == rhs.days.map { "\($0.app) \($0.day)" }
        }

        /// "Recomputed N days of M apps", one line per app with its day range, and how many
        /// sends were judged again.
        public var text: String {
            let cohorts = "\(promptCohortDays) prompt-cohort day\(promptCohortDays == 1 ? "" : "s")"
            let sends =
                """
                \(reclassifiedSends) send\(reclassifiedSends == 1 ? "" : "s") \
                reclassified\(full ? " (full rebuild)" : "")\n
                """
            guard !days.isEmpty else {
                return promptCohortDays == 0 && reclassifiedSends == 0
                    ? "rollups up to date as of \(Timestamp.rfc3339(asOf)): nothing to recompute\n"
                    : "recomputed \(cohorts) as of \(Timestamp.rfc3339(asOf))\n" + (reclassifiedSends == 0 ? "" : sends)
            }
            let apps = Dictionary(grouping: days, by: \.app)
            var lines = [
                """
                recomputed \(days.count) day\(days.count == 1 ? "" : "s") of \(apps.count) \
                app\(apps.count == 1 ? "" : "s") and \(cohorts) as of \(Timestamp.rfc3339(asOf))
                """
            ]
            for app in apps.keys.sorted() {
                let list = apps[app]!.map(\.day).sorted()
                lines.append("  \(app): \(list.count) (\(list.first!)\(list.count > 1 ? " … \(list.last!)" : ""))")
            }
            return lines.joined(separator: "\n") + "\n" + sends
        }

        public var json: JSONValue {
            .object([
                ("as_of", .string(Timestamp.rfc3339(asOf))),
                ("days", .array(days.map { .object([("app", .string($0.app)), ("day", .string($0.day))]) })),
                ("full", .bool(full)),
                ("reclassified_sends", .int(reclassifiedSends)),
                ("prompt_cohort_days", .int(promptCohortDays)),
            ])
        }
    }

    /// Brings the rollups up to date as of `asOf` in one transaction, from what arrived since
    /// the last refresh (`full`: recomputes everything from scratch instead). Only `pushledger
    /// rollup` (`--follow`, or once) and repairs call it: reports never write, they say how fresh the
    /// rollups are (``RollupStatus``). Idempotent and safe while ingest runs.
    ///
    /// `asOf` should be now: a refresh as of an earlier time than the last one rebuilds.
    public static func refresh(
        connection: Connection, asOf: Date = Date(),
        confirmationWindow: TimeInterval = OutcomeRules.defaultConfirmationWindow,
        full: Bool = false
    ) throws(ReportError) -> Summary {
        let window = "\(Int(confirmationWindow.rounded())) seconds"
        return try databaseStep(full ? "rebuilding rollups" : "refreshing rollups") {
            try connection.transaction { connection in
                // One row a refreshed (app, day), or one row with nulls when none was.
                let rows = try connection.query(
                    """
                    select p.prompt_cohort_days, p.reclassified_sends::int as sends, p.rebuilt, d.app, d.day::text
                      from pushledger_rollup_pass(\(asOf), \(window)::interval, \(full)) p
                      left join lateral unnest(p.apps, p.days) with ordinality d(app, day, n) on true
                     order by d.n
                    """)
                let days = try rows.compactMap { row -> (app: String, day: String)? in
                    guard let app = try row.decode("app", as: String?.self) else { return nil }
                    return (app, try row.decode("day", as: String.self))
                }
                return Summary(
                    days: days, promptCohortDays: try rows[0].decode("prompt_cohort_days"), asOf: asOf,
                    reclassifiedSends: try rows[0].decode("sends"), full: try rows[0].decode("rebuilt"))
            }
        }
    }
}
