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
        /// Sends of whole days classified on the second connection (0: none, or one connection).
        public var secondConnectionSends: Int = 0
        /// Why the second connection's part was classified on the first after all (for logs).
        public var secondConnectionFailure: String?

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
    ///
    /// `secondConnection`: where a refresh classifies most of its whole days while `connection`
    /// looks up what else the inputs affect and classifies the rest (a rebuild ignores it). If it
    /// fails, `connection` classifies those days too: the result is the same.
    public static func refresh(
        connection: Connection, asOf: Date = Date(),
        confirmationWindow: TimeInterval = OutcomeRules.defaultConfirmationWindow,
        full: Bool = false, secondConnection: SecondConnection? = nil
    ) throws(ReportError) -> Summary {
        let window = "\(Int(confirmationWindow.rounded())) seconds"
        let secondConnection = full ? nil : secondConnection
        return try databaseStep(full ? "rebuilding rollups" : "refreshing rollups") {
            if secondConnection != nil {
                // What busy writers left, committed first: the second connection sees only what
                // is committed, so the pass's own application must find nothing for it to be used.
                _ = try connection.queryCommitting("select pushledger_apply_derived_inputs() as applied")
            }
            return try connection.transaction { connection in
                var elsewhere = (sends: 0, failure: String?.none)
                // The pass's row: one row a refreshed (app, day), or one row with nulls when none was.
                var pass: SQL = "pushledger_rollup_pass(\(asOf), \(window)::interval, \(full))"
                if let secondConnection {
                    let begun = try connection.query(
                        """
                        select derived_applied, incremental
                          from pushledger_rollup_pass_start(\(asOf), \(window)::interval, false)
                        """)[0]
                    let incremental: Bool = try begun.decode("incremental")
                    // The pass's own application changed rows the second connection cannot see.
                    let applied: Int = try begun.decode("derived_applied")
                    let useSecond = incremental && applied == 0
                    let judged = try judgeAgain(
                        connection: connection, asOf: asOf, window: window, incremental: incremental,
                        secondConnection: useSecond ? secondConnection : nil)
                    elsewhere = (judged.sends, judged.failure)
                    pass = """
                        pushledger_rollup_pass_end(\(asOf), \(window)::interval, \(judged.promptCohortDays)::integer, \
                        \(incremental))
                        """
                }
                let rows = try connection.query(
                    """
                    select p.prompt_cohort_days, p.reclassified_sends::int as sends, p.rebuilt, d.app, d.day::text
                      from \(pass) p
                      left join lateral unnest(p.apps, p.days) with ordinality d(app, day, n) on true
                     order by d.n
                    """)
                let days = try rows.compactMap { row -> (app: String, day: String)? in
                    guard let app = try row.decode("app", as: String?.self) else { return nil }
                    return (app, try row.decode("day", as: String.self))
                }
                return Summary(
                    days: days, promptCohortDays: try rows[0].decode("prompt_cohort_days"), asOf: asOf,
                    reclassifiedSends: try rows[0].decode("sends"), full: try rows[0].decode("rebuilt"),
                    secondConnectionSends: elsewhere.sends, secondConnectionFailure: elsewhere.failure)
            }
        }
    }

    /// The middle of a pass begun on `connection` (sql/engine/pass.sql): the prompt cohorts, then
    /// when `incremental` the refresh's sends stored, look-ups and whole days into `rollup_new`,
    /// about 80 % of the whole days' sends classified on `secondConnection` in the pass's
    /// snapshot meanwhile (everything else here runs while it works). Returns the prompt-cohort
    /// days, how many sends the second connection classified, and why it did not when it failed
    /// (its days then classified here).
    static func judgeAgain(
        connection: Connection, asOf: Date, window: String, incremental: Bool, secondConnection: SecondConnection?
    ) throws -> (promptCohortDays: Int, sends: Int, failure: String?) {
        var promptCohortDays = 0
        // What the pass's connection does either way: the prompt cohorts, the look-ups, and the
        // whole days that are not the second connection's (all of them without one).
        func judgeHere() throws {
            promptCohortDays = try connection.query(
                "select pushledger_rollup_pass_prompts(\(asOf), false) as days")[0].decode("days")
            guard incremental else { return }
            try connection.query("select pushledger_refresh_rollups_affected(\(asOf), \(window)::interval)")
            try connection.query("select pushledger_classify_whole_days(\(asOf), \(window)::interval, false)")
        }
        let runs: String? =
            secondConnection == nil
            ? nil
            : try connection.query("select pushledger_second_connection_runs()::text as runs")[0].decode("runs")
        guard let secondConnection, let runs else {
            try judgeHere()
            return (promptCohortDays, 0, nil)
        }
        // Exported after the queue was taken: the second connection sees every input taken, and
        // what committed since (queued again for the next pass, as on one connection).
        let snapshot: String = try connection.query("select pg_export_snapshot() as id")[0].decode("id")
        let part = secondConnection.classify(runs: runs, asOf: asOf, window: window, snapshot: snapshot)
        let first = Result { try judgeHere() }
        // Waited for even when the first part failed: no thread outlives the pass.
        let secondPart = part.wait()
        _ = try first.get()
        switch secondPart {
        case .success(let stored):
            let taken: Int = try connection.query("select pushledger_take_second_rows()::int as taken")[0].decode(
                "taken")
            guard taken == stored else {
                throw PostgresError(
                    code: .misuse, message: "the second connection stored \(stored) rows but the pass found \(taken)")
            }
            return (promptCohortDays, taken, nil)
        case .failure(let error):
            try connection.query("select pushledger_classify_whole_days(\(asOf), \(window)::interval, true)")
            return (promptCohortDays, 0, String(describing: error))
        }
    }
}
