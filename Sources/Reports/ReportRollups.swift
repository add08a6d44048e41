import Foundation
import PushLedgerCLI
import Postgres
import PushLedgerSupport

/// `pushledger rollup`: the incremental refresh of the daily rollups the reports read
/// (send outcomes and rejections from sql/engine/rollups.sql, tap-through landing from
/// sql/engine/landings.sql, prompt cohorts from sql/engine/prompt_rollups.sql).
public enum ReportRollups {
    /// What a refresh recomputed.
    public struct Summary: Sendable, Equatable {
        /// Recomputed (app, UTC day "YYYY-MM-DD") pairs, in order.
        public var days: [(app: String, day: String)]
        /// Recomputed (app, experiment or as-treated, day) prompt-cohort rollups.
        public var promptCohortDays: Int
        public var asOf: Date

        public static func == (lhs: Summary, rhs: Summary) -> Bool {
            lhs.asOf == rhs.asOf && lhs.promptCohortDays == rhs.promptCohortDays && lhs.days.map { "\($0.app) \($0.day)" } == rhs.days.map { "\($0.app) \($0.day)" }
        }

        /// "Recomputed N days of M apps" and one line per app with its day range.
        public var text: String {
            let cohorts = "\(promptCohortDays) prompt-cohort day\(promptCohortDays == 1 ? "" : "s")"
            guard !days.isEmpty else {
                return promptCohortDays == 0
                    ? "rollups up to date as of \(Display.timestamp(asOf)): nothing to recompute\n"
                    : "recomputed \(cohorts) as of \(Display.timestamp(asOf))\n"
            }
            let apps = Dictionary(grouping: days, by: \.app)
            var lines = ["recomputed \(days.count) day\(days.count == 1 ? "" : "s") of \(apps.count) app\(apps.count == 1 ? "" : "s") and \(cohorts) as of \(Display.timestamp(asOf))"]
            for app in apps.keys.sorted() {
                let list = apps[app]!.map(\.day).sorted()
                lines.append("  \(app): \(list.count) (\(list.first!)\(list.count > 1 ? " … \(list.last!)" : ""))")
            }
            return lines.joined(separator: "\n") + "\n"
        }

        public var json: JSONValue {
            .object([
                ("as_of", .string(Display.timestamp(asOf))),
                ("days", .array(days.map { .object([("app", .string($0.app)), ("day", .string($0.day))]) })),
                ("prompt_cohort_days", .int(promptCohortDays)),
            ])
        }
    }

    /// Recomputes the dirty and still-pending days as of `asOf` in one transaction. Only
    /// `pushledger rollup` (on a schedule) and repairs call it: reports never write, they say
    /// how fresh the rollups are (``RollupStatus``). Idempotent and safe while ingest runs.
    ///
    /// `asOf` should be now: a day recomputed at an earlier time is not revisited unless its
    /// inputs change again or it still counts pending sends.
    public static func refresh(connection: Connection, asOf: Date = Date(), confirmationWindow: TimeInterval = ReportQuery.defaultConfirmationWindow)
        throws(ReportError) -> Summary
    {
        let window = "\(Int(confirmationWindow.rounded())) seconds"
        let (days, cohorts) = try databaseStep("refreshing rollups") {
            try connection.transaction { connection in
                let cohorts: Int = try connection.query("select pushledger_refresh_prompt_rollups(\(asOf)) as n")[0].decode("n")
                let days = try connection.query(
                    """
                    select refreshed_app, refreshed_day::text as day
                      from pushledger_refresh_report_rollups(\(asOf), \(window)::interval)
                    """
                ).map { (app: try $0.decode("refreshed_app", as: String.self), day: try $0.decode("day", as: String.self)) }
                return (days, cohorts)
            }
        }
        return Summary(days: days, promptCohortDays: cohorts, asOf: asOf)
    }
}
