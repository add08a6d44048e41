import Foundation
import OutcomeEngine
import Postgres
import PushLedgerContract
import PushLedgerRules

/// `report prompt-timing`: permission-prompt cohorts compared with a baseline cohort
/// (docs/metrics.md "Permission prompt timing").
public struct PromptTimingReport: Sendable, Equatable {
    public enum Mode: String, Sendable {
        case intentToTreat = "intent_to_treat"
        case asTreated = "as_treated"
    }

    /// What the caller asks for beyond the window.
    public struct Options: Sendable, Equatable {
        public var experiment: String
        /// The baseline cohort; nil: `first_screen` when it exists, else the first cohort by name.
        public var baseline: String?
        /// Cohorts by the first system prompt's placement instead of the experiment's variant.
        public var asTreated: Bool
        /// Narrows the cohorts to one platform (`ios` / `android`).
        public var platform: String?
        /// Downstream send rates (they classify the window's sends; the weekly report skips them).
        public var includeSends: Bool
        /// Read the daily prompt-cohort rollups (refreshed by the caller, as of their refresh)
        /// instead of the events; the window must be whole UTC days and sends are not included.
        public var fromRollups: Bool

        public init(
            experiment: String = "push_prompt_timing", baseline: String? = nil, asTreated: Bool = false,
            platform: String? = nil, includeSends: Bool = true, fromRollups: Bool = false
        ) {
            self.experiment = experiment
            self.baseline = baseline
            self.asTreated = asTreated
            self.platform = platform
            self.includeSends = includeSends
            self.fromRollups = fromRollups
        }
    }

    /// One cohort's counts and rates.
    public struct Cohort: Sendable, Equatable {
        public var name: String
        public var installs: Int
        public var prompted: Int
        public var optIn: Rate
        public var provisional: Rate
        public var reach: Rate
        public var grantedWithoutPrompt: Int
        public var retained7d: Rate
        public var medianHoursToPrompt: Double?
        /// Downstream, descriptive only; nil when sends were not asked for.
        public var openRate: Rate?
        public var silentLossRate: Rate?

        /// The four compared rates with their JSON names.
        public var comparedRates: [(name: String, rate: Rate)] {
            [
                ("opt_in_rate", optIn), ("provisional_rate", provisional), ("reach_rate", reach),
                ("retained_7d", retained7d),
            ]
        }
    }

    public let query: ReportQuery
    public let options: Options
    public let mode: Mode
    /// True when intent-to-treat was asked for but no first exposure fell in the window.
    public let fellBack: Bool
    public let baseline: String?
    public let cohorts: [Cohort]

    /// Runs intent-to-treat (or as-treated on request), falling back to as-treated when no
    /// installation's first exposure to the experiment falls in the window.
    public static func run(
        connection: Connection, query: ReportQuery, options: Options = Options()
    ) throws(ReportError)
        -> PromptTimingReport
    {
        let query = try query.validated()
        if let platform = options.platform, Platform(rawValue: platform) == nil {
            let known = Platform.allCases.map(\.rawValue).joined(separator: ", ")
            throw ReportError.invalidQuery("unknown platform '\(platform)' (expected one of \(known))")
        }
        if options.fromRollups {
            guard query.isWholeDays, !options.includeSends else {
                throw ReportError.invalidQuery("prompt-cohort rollups cover whole UTC days and no sends")
            }
        }
        var mode: Mode = options.asTreated ? .asTreated : .intentToTreat
        var cohorts = try loadCohorts(connection, query, options, mode: mode)
        let fellBack = mode == .intentToTreat && cohorts.isEmpty
        if fellBack {
            mode = .asTreated
            cohorts = try loadCohorts(connection, query, options, mode: mode)
        }
        if let wanted = options.baseline, !cohorts.contains(where: { $0.name == wanted }) {
            throw ReportError.invalidQuery("baseline cohort '\(wanted)' has no installations in the window")
        }
        let baseline =
            options.baseline
            ?? (cohorts.contains { $0.name == "first_screen" } ? "first_screen" : cohorts.first?.name)
        return PromptTimingReport(
            query: query, options: options, mode: mode, fellBack: fellBack, baseline: baseline, cohorts: cohorts)
    }

    private static func loadCohorts(
        _ connection: Connection, _ query: ReportQuery, _ options: Options, mode: Mode
    )
        throws(ReportError) -> [Cohort]
    {
        let asTreated = mode == .asTreated
        let source: SQL =
            options.fromRollups
            ? """
            pushledger_rollup_prompt_cohorts(\(query.app), (\(query.from) at time zone 'UTC')::date,
                (\(query.to) at time zone 'UTC')::date, \(options.experiment), \(asTreated), \(options.platform))
            """
            : """
            pushledger_prompt_cohorts(\(query.app), \(query.from), \(query.to), \(query.asOf),
                \(options.experiment), \(asTreated), \(options.platform))
            """
        var cohorts = try databaseStep("computing prompt cohorts") {
            try connection.query(
                """
                select cohort, installs, prompted, granted, provisional, reached, granted_without_prompt,
                       retained_eligible, retained, median_hours_to_prompt
                  from \(source)
                """
            ).map { row in
                let installs: Int = try row.decode("installs")
                let prompted: Int = try row.decode("prompted")
                return Cohort(
                    name: try row.decode("cohort"), installs: installs, prompted: prompted,
                    optIn: Rate(try row.decode("granted"), of: prompted),
                    provisional: Rate(try row.decode("provisional"), of: prompted),
                    reach: Rate(try row.decode("reached"), of: installs),
                    grantedWithoutPrompt: try row.decode("granted_without_prompt"),
                    retained7d: Rate(try row.decode("retained"), of: try row.decode("retained_eligible")),
                    medianHoursToPrompt: try row.decode("median_hours_to_prompt"))
            }
        }
        guard options.includeSends, !cohorts.isEmpty else { return cohorts }
        let sends = try databaseStep("classifying cohort sends") {
            try connection.query(
                """
                select cohort, accepted, opened, silent_loss
                  from pushledger_prompt_cohort_sends(\(query.app), \(query.from), \(query.to), \(query.asOf),
                       \(query.windowInterval)::interval, \(options.experiment), \(asTreated), \(options.platform))
                """
            ).map { row in
                (
                    try row.decode("cohort", as: String.self),
                    try row.decode("accepted", as: Int.self), try row.decode("opened", as: Int.self),
                    try row.decode("silent_loss", as: Int.self)
                )
            }
        }
        for i in cohorts.indices {
            let found = sends.first { $0.0 == cohorts[i].name }
            let accepted = found?.1 ?? 0
            cohorts[i].openRate = Rate(found?.2 ?? 0, of: accepted)
            cohorts[i].silentLossRate = Rate(found?.3 ?? 0, of: accepted)
        }
        return cohorts
    }

    /// The baseline cohort's figures, if any.
    public var baselineCohort: Cohort? { cohorts.first { $0.name == baseline } }

    /// `cohort` against the baseline for the four compared rates; nil for the baseline itself.
    public func comparisons(_ cohort: Cohort) -> [(name: String, comparison: RateComparison)]? {
        guard let base = baselineCohort, base.name != cohort.name else { return nil }
        return zip(cohort.comparedRates, base.comparedRates).map { mine, theirs in
            (mine.name, RateComparison(candidate: mine.rate, baseline: theirs.rate))
        }
    }

    /// One line naming the mode, so every format says which cohorts these are.
    public var modeNote: String {
        switch (mode, fellBack) {
        case (.intentToTreat, _):
            return
                """
                intent-to-treat: cohorts by the variant of each installation's first '\(options.experiment)' \
                exposure in the window
                """
        case (.asTreated, true):
            return
                """
                as-treated (fallback: no first '\(options.experiment)' exposure in the window): cohorts by the \
                placement of the first system prompt; reach compares prompted users only
                """
        case (.asTreated, false):
            return "as-treated: cohorts by the placement of the first system prompt; reach compares prompted users only"
        }
    }
}
