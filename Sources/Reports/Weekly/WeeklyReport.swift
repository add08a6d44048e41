import Foundation
import OutcomeEngine
import Postgres
import PushLedgerContract
import PushLedgerRules
import PushLedgerSupport
import TableRendering

/// `report weekly`: the sections of docs/metrics.md "Weekly report", each with the previous
/// week beside it. Reads only rollups (never refreshes them), so its time does not grow with events.
public struct WeeklyReport: Sendable {
    /// A slice's outcome counts this week and the week before.
    public struct Slice: Sendable, Equatable {
        public var name: String
        public var current: OutcomeCounts
        public var previous: OutcomeCounts
    }

    /// Rejections of one (provider, reason class, reason).
    public struct ReasonRow: Sendable, Equatable {
        public var provider: String
        public var reasonClass: String
        public var reason: String?
        public var current: Int
        public var previous: Int
    }

    /// Tap-through landing of one (channel, campaign).
    public struct Landing: Sendable, Equatable {
        public var opens = 0
        /// Opens that reported where they landed (the misrouted rate's denominator).
        public var landedReported = 0
        /// Opens that landed on `fallback` or `rejected`.
        public var misrouted = 0
        public var misroutedRate: Rate { Rate(misrouted, of: landedReported) }
    }

    public struct LandingRow: Sendable, Equatable {
        public var channel: String
        public var campaign: String?
        public var current: Landing
        public var previous: Landing
    }

    /// One alert transition to `firing` during the week (table `alert_transitions`).
    public struct FiredAlert: Sendable, Equatable {
        public var rule: String
        public var slice: String
        public var at: Date
        public var currentRate: Double?
        public var baselineRate: Double?
        public var deltaPoints: Double?
        public var pValue: Double?
        public var message: String
    }

    /// nil: alerting is not set up (no `alert_transitions` table).
    public typealias Alerts = [FiredAlert]?

    public let app: String
    public let week: ISOWeek
    /// The rollups' as_of (the refresh time; now when they were never refreshed).
    public let asOf: Date
    /// How fresh the rollups the report read are.
    public let rollups: RollupStatus
    public let headline: Slice
    public let channels: [Slice]
    public let platforms: [Slice]
    /// Web sends per browser and per push service (empty without web sends either week).
    public let browsers: [Slice]
    public let pushServices: [Slice]
    /// Causes of unconfirmed sends and latency buckets per platform and channel.
    public let causeSlices: [CauseSlice]
    /// Silent loss by channel across the recent weeks, oldest first (the chart's data).
    public let trend: [(week: ISOWeek, channel: String, counts: OutcomeCounts)]
    public let rejections: [ReasonRow]
    public let landings: [LandingRow]
    /// This week's unconfirmable sends by kind, most first.
    public let cannotConfirm: [CannotConfirmRow]
    /// Per link host: this week's misrouted opens beside the last association check.
    public internal(set) var linkHosts: [LinkHostRow] = []
    public let promptTiming: PromptTimingReport
    public let previousPromptTiming: PromptTimingReport
    public let alerts: Alerts
    /// FCM's Aggregated Delivery Data beside the devices, per Los Angeles day of the week.
    public var providerCheck: ProviderCheckReport? = nil
    /// Every app of a sharded deployment (``fleet(directory:week:rollups:)``): the sections that
    /// add up across apps only.
    public internal(set) var isFleet = false

    /// How many weeks the trend chart shows.
    public static let trendWeeks = 8

    /// Reads the week and the one before from the rollups as they are, as of their latest
    /// refresh (``RollupStatus``): it writes nothing, so a read-only login or a hot standby gives
    /// the same report as the primary. `pushledger rollup` refreshes them; never refreshed, every
    /// figure is empty and the report says to run it.
    public static func run(
        connection: Connection, app: String, week: ISOWeek, experiment: String = "push_prompt_timing"
    ) throws(ReportError) -> WeeklyReport {
        guard !app.isEmpty else { throw ReportError.invalidQuery("--app is required") }
        let rollups = try RollupStatus.read(connection: connection)
        let asOf = rollups.asOf ?? Date()
        let sums = try Sums(connection, .app(app), week)
        let options = PromptTimingReport.Options(experiment: experiment, includeSends: false, fromRollups: true)
        func prompts(_ w: ISOWeek) throws(ReportError) -> PromptTimingReport {
            try PromptTimingReport.run(
                connection: connection, query: ReportQuery(app: app, from: w.start(), to: w.end(), asOf: asOf),
                options: options)
        }
        return WeeklyReport(
            app: app, week: week, asOf: asOf, rollups: rollups,
            headline: sums.headline, channels: sums.channels, platforms: sums.platforms, browsers: sums.browsers,
            pushServices: sums.pushServices, causeSlices: sums.causeSlices, trend: sums.trend,
            rejections: sums.rejections, landings: sums.landings,
            cannotConfirm: sums.cannotConfirm, linkHosts: try linkHosts(connection, app, week),
            promptTiming: try prompts(week), previousPromptTiming: try prompts(week.previous),
            alerts: try alerts(connection, app, week),
            providerCheck: try providerCheck(connection, app, week, asOf: asOf))
    }

    /// The report of every app of a sharded deployment, read on its directory's coordinator
    /// (``ReportScope/fleet``): outcomes, causes, latency, rejections and landing, each app's as
    /// its shard's rollups give them, summed (rates and latency figures from the sums). Prompt
    /// timing, link hosts, alerts and the provider check belong to one app: `--app` reports them.
    /// `rollups`: the shards' freshness combined (``RollupStatus/combined(_:)``).
    public static func fleet(
        directory: Connection, week: ISOWeek, rollups: RollupStatus
    ) throws(ReportError) -> WeeklyReport {
        let asOf = rollups.asOf ?? Date()
        let sums = try Sums(directory, .fleet, week)
        let query = ReportQuery(app: ReportScope.fleetName, from: week.start(), to: week.end(), asOf: asOf)
        let prompts = PromptTimingReport(
            query: query, options: PromptTimingReport.Options(fromRollups: true), mode: .intentToTreat,
            fellBack: false, baseline: nil, cohorts: [])
        return WeeklyReport(
            app: ReportScope.fleetName, week: week, asOf: asOf, rollups: rollups, headline: sums.headline,
            channels: sums.channels, platforms: sums.platforms, browsers: sums.browsers,
            pushServices: sums.pushServices, causeSlices: sums.causeSlices, trend: sums.trend,
            rejections: sums.rejections, landings: sums.landings, cannotConfirm: sums.cannotConfirm,
            promptTiming: prompts,
            previousPromptTiming: prompts, alerts: [], isFleet: true)
    }

    /// The sections that add up across apps, read for one app or the fleet.
    private struct Sums {
        var headline: Slice, channels: [Slice], platforms: [Slice], browsers: [Slice], pushServices: [Slice]
        var causeSlices: [CauseSlice]
        var trend: [(week: ISOWeek, channel: String, counts: OutcomeCounts)]
        var rejections: [ReasonRow], landings: [LandingRow]
        var cannotConfirm: [CannotConfirmRow]

        init(_ connection: Connection, _ scope: ReportScope, _ week: ISOWeek) throws(ReportError) {
            let weeks = week.recent(WeeklyReport.trendWeeks)
            let byWeek = try totals(connection, scope, weeks[0], week, by: "week")
            let byChannel = try totals(connection, scope, weeks[0], week, by: "week,channel")
            let byPlatform = try totals(connection, scope, week.previous, week, by: "week,platform")
            // Web sends only: a web send without a snapshot has no browser ("unknown").
            let byBrowser = try totals(
                connection, scope, week.previous, week, by: "week,platform,browser", web: "browser")
            let byPushService = try totals(
                connection, scope, week.previous, week, by: "week,platform,push_service", web: "push_service")
            func slices(_ rows: [(week: ISOWeek, name: String, counts: OutcomeCounts)]) -> [Slice] {
                Set(rows.filter { $0.week >= week.previous }.map(\.name)).sorted().map { name in
                    Slice(
                        name: name,
                        current: rows.first { $0.week == week && $0.name == name }?.counts ?? OutcomeCounts(),
                        previous: rows.first { $0.week == week.previous && $0.name == name }?.counts ?? OutcomeCounts())
                }
            }
            headline =
                slices(byWeek).first.map { Slice(name: "all", current: $0.current, previous: $0.previous) }
                ?? Slice(name: "all", current: OutcomeCounts(), previous: OutcomeCounts())
            channels = slices(byChannel)
            platforms = slices(byPlatform)
            browsers = slices(byBrowser)
            pushServices = slices(byPushService)
            causeSlices = try WeeklyReport.causeSlices(connection, scope, week)
            trend = byChannel.map { ($0.week, $0.name, $0.counts) }
            rejections = try WeeklyReport.rejections(connection, scope, week)
            landings = try WeeklyReport.landings(connection, scope, week)
            cannotConfirm = try WeeklyReport.cannotConfirm(connection, scope, week)
        }
    }

    /// The columns `pushledger_rollup_totals` groups by, in its order.
    static let totalsKeys = [
        "channel", "platform", "app_version", "campaign", "provider", "week", "push_type", "message_kind", "browser",
        "push_service",
    ]

    /// The cross-check of the week's Los Angeles days; nil without FCM data for them, whose check
    /// would show devices only (the section says how to import it) and costs an engine pass a day.
    private static func providerCheck(
        _ connection: Connection, _ app: String, _ week: ISOWeek, asOf: Date
    )
        throws(ReportError) -> ProviderCheckReport?
    {
        let from = CivilDate(week.start()), to = CivilDate(daysSinceEpoch: CivilDate(week.start()).daysSinceEpoch + 7)
        let imported = try databaseStep("looking for FCM delivery data") {
            try connection.query(
                """
                select exists (select 1 from fcm_delivery_data where app_id = \(app) and day >= \(from.iso)::date \
                and day < \(to.iso)::date) as found
                """
            )[0].decode("found", as: Bool.self)
        }
        guard imported else { return nil }
        return try ProviderCheckReport.run(
            connection: connection, app: app, from: from, to: to, byCampaign: false, asOf: asOf)
    }

    /// Rollup sums per week (and the second dimension in `by`, if any) over weeks [first, last].
    /// `web`: the web sends only, named by this column of theirs (`browser` or `push_service`).
    private static func totals(
        _ connection: Connection, _ scope: ReportScope, _ first: ISOWeek, _ last: ISOWeek, by: String,
        web: String? = nil
    ) throws(ReportError) -> [(week: ISOWeek, name: String, counts: OutcomeCounts)] {
        let rows = scope.rows(keys: totalsKeys, sums: OutcomeCounts.summedColumns) { app in
            """
            pushledger_rollup_totals(\(app), \(Display.day(first.start()))::date, \(Display.day(last.end()))::date,
                                     string_to_array(\(by), ','))
            """
        }
        let name = web.map { "coalesce(\($0), 'unknown')" } ?? "coalesce(channel, platform, 'all')"
        return try databaseStep("reading rollups") {
            try connection.query(
                OutcomeCounts.withRates(
                    """
                    select week::timestamp at time zone 'UTC' as week, \(unsafeRaw: name) as name,
                           \(unsafeRaw: OutcomeCounts.sqlColumns), \(unsafeRaw: CauseCounts.sqlColumns)
                      from \(rows) \(unsafeRaw: web == nil ? "" : "where platform = 'web'")
                    """
                )
            ).map { row in
                (
                    ISOWeek(containing: try row.decode("week", as: Date.self) as Date), try row.decode("name"),
                    try OutcomeCounts(row: row, causes: true)
                )
            }
        }
    }

    private static func rejections(
        _ connection: Connection, _ scope: ReportScope, _ week: ISOWeek
    ) throws(ReportError) -> [ReasonRow] {
        let load = { (w: ISOWeek) throws(ReportError) -> [ReasonRow] in
            let rows = scope.rows(keys: ["provider", "reason_class", "reason"], sums: ["rejected"]) { app in
                "pushledger_rollup_rejections(\(app), \(Display.day(w.start()))::date, \(Display.day(w.end()))::date)"
            }
            return try databaseStep("reading rejection rollups") {
                try connection.query("select provider, reason_class, reason, rejected from \(rows)").map { row in
                    ReasonRow(
                        provider: try row.decode("provider"), reasonClass: try row.decode("reason_class"),
                        reason: try row.decode("reason"), current: try row.decode("rejected"), previous: 0)
                }
            }
        }
        var rows = try load(week)
        for old in try load(week.previous) {
            if let i = rows.firstIndex(where: {
                ($0.provider, $0.reasonClass, $0.reason) == (old.provider, old.reasonClass, old.reason)
            }) {
                rows[i].previous = old.current
            } else {
                rows.append(
                    ReasonRow(
                        provider: old.provider, reasonClass: old.reasonClass, reason: old.reason, current: 0,
                        previous: old.current))
            }
        }
        return rows.sorted {
            ($1.current, $1.previous, $0.provider, $0.reason ?? "") < (
                $0.current, $0.previous, $1.provider, $1.reason ?? ""
            )
        }
    }

    /// The week's unconfirmable sends by provider, push type and message kind.
    private static func cannotConfirm(
        _ connection: Connection, _ scope: ReportScope, _ week: ISOWeek
    ) throws(ReportError) -> [CannotConfirmRow] {
        let rows = scope.rows(keys: totalsKeys, sums: OutcomeCounts.summedColumns) { app in
            """
            pushledger_rollup_totals(\(app), \(Display.day(week.start()))::date, \(Display.day(week.end()))::date,
                                     '{provider,push_type,message_kind}')
            """
        }
        let found = try databaseStep("reading rollups") {
            try connection.query(
                """
                select provider, push_type, message_kind, unconfirmable from \(rows) where unconfirmable > 0
                """
            ).map { row in
                let provider: String = try row.decode("provider")
                // the field the rule reads for the provider: APNs's push type, FCM's message kind
                return CannotConfirmRow(
                    provider: provider, pushType: provider == "apns" ? try row.decode("push_type") : nil,
                    messageKind: provider == "apns" ? nil : try row.decode("message_kind"),
                    unconfirmable: try row.decode("unconfirmable"))
            }
        }
        var merged: [CannotConfirmRow] = []
        for row in found {
            if let i = merged.firstIndex(where: { $0.kind == row.kind }) {
                merged[i].unconfirmable += row.unconfirmable
            } else {
                merged.append(row)
            }
        }
        return merged.sorted { ($1.unconfirmable, $0.kind) < ($0.unconfirmable, $1.kind) }
    }

    private static func landings(
        _ connection: Connection, _ scope: ReportScope, _ week: ISOWeek
    ) throws(ReportError) -> [LandingRow] {
        let load = { (w: ISOWeek) throws(ReportError) -> [(channel: String, campaign: String?, landing: Landing)] in
            let rows = scope.rows(keys: ["channel", "campaign"], sums: ["opens", "landed_reported", "misrouted"]) {
                app in
                "pushledger_rollup_landings(\(app), \(Display.day(w.start()))::date, \(Display.day(w.end()))::date)"
            }
            return try databaseStep("reading landing rollups") {
                try connection.query("select channel, campaign, opens, landed_reported, misrouted from \(rows)").map {
                    row in
                    (
                        try row.decode("channel"), try row.decode("campaign"),
                        Landing(
                            opens: try row.decode("opens"), landedReported: try row.decode("landed_reported"),
                            misrouted: try row.decode("misrouted"))
                    )
                }
            }
        }
        let current = try load(week), previous = try load(week.previous)
        var keys: [(String, String?)] = []
        for row in current + previous where !keys.contains(where: { $0 == (row.channel, row.campaign) }) {
            keys.append((row.channel, row.campaign))
        }
        return keys.map { key in
            LandingRow(
                channel: key.0, campaign: key.1,
                current: current.first { ($0.channel, $0.campaign) == key }?.landing ?? Landing(),
                previous: previous.first { ($0.channel, $0.campaign) == key }?.landing ?? Landing())
        }.sorted { ($0.channel, $0.campaign ?? "") < ($1.channel, $1.campaign ?? "") }
    }

    private static func alerts(_ connection: Connection, _ app: String, _ week: ISOWeek) throws(ReportError) -> Alerts {
        try databaseStep("reading fired alerts") {
            let exists = try connection.query("select to_regclass('alert_transitions') is not null as present")
            guard try exists.first?.decode("present", as: Bool.self) == true else { return nil }
            return try connection.query(
                """
                select rule, slice, at, current_rate, baseline_rate, delta_pp, p_value, message
                  from pushledger_fired_alerts(\(app), \(week.start()), \(week.end()))
                """
            ).map { row in
                FiredAlert(
                    rule: try row.decode("rule"), slice: try row.decode("slice"), at: try row.decode("at"),
                    currentRate: try row.decode("current_rate"), baselineRate: try row.decode("baseline_rate"),
                    deltaPoints: try row.decode("delta_pp"), pValue: try row.decode("p_value"),
                    message: try row.decode("message"))
            }
        }
    }
}

extension ISOWeek {
    /// The `count` weeks ending with this one, oldest first.
    func recent(_ count: Int) -> [ISOWeek] {
        var weeks = [self]
        while weeks.count < count { weeks.insert(weeks[0].previous, at: 0) }
        return weeks
    }
}
