import Foundation
import IngestServer
import Postgres
import PushLedgerSupport
import PushLedgerCLI
import PushLedgerRules
import Reports

/// Options every report shares: which app, which window, as of when, which format.
private let windowOptions: [OptionSpec] = [
    .value("app", help: "The app id to report on", environment: "PUSHLEDGER_APP", required: true),
    .value("from", type: .timestamp, help: "Window start, ISO 8601 date or time, UTC (default: 7 days before --to)"),
    .value("to", type: .timestamp, help: "Window end, exclusive (default: --as-of)"),
    .value("week", type: .week, help: "An ISO week such as 2026-W48 instead of --from/--to"),
    .value("as-of", type: .timestamp, help: "Evaluate as of this time; nothing later counts (default: now)"),
    .value("window", type: .duration, help: "Confirmation window: accepted sends younger than this are pending",
           default: OutcomeRules.defaultConfirmationSpan.description),
]

/// `--source`: who answers a silent-loss query (SilentLossReport.plan).
private let sourceOption: OptionSpec = .value(
    "source", type: .choice(ReportSource.allCases.map(\.rawValue)),
    help: "Who answers: rollups (as of their last `pushledger rollup`), engine (classifies the window now), auto: rollups when the window holds a whole UTC day",
    default: ReportSource.auto.rawValue)

/// How the reports get their figures, for the commands' --help.
private let rollupsNote = "Reports only read: they never refresh the rollups. `pushledger rollup --follow` does, kept running as a service (docs/operations/README.md); a report from the rollups says how fresh they are."

private func formatOption(_ formats: [ReportFormat], default value: ReportFormat) -> OptionSpec {
    .value("format", type: .choice(formats.map(\.rawValue)), help: "Output format", default: value.rawValue)
}

enum ReportCommand: Command {
    static let spec = CommandSpec(
        "report", summary: "Silent loss, prompt timing, rejections and the weekly report",
        discussion: "Windows are [from, to) in UTC. An empty window gives an empty report. Definitions: docs/metrics.md.",
        subcommands: [
            CommandSpec(
                "silent-loss", summary: "Outcome counts and silent-loss rates of sends, optionally sliced",
                discussion: "Answered from the rollups (whole UTC days; the outcome engine for the window's other hours) or by the engine over the exact window; the output says which. With --as-of or --window other than 24h, auto uses the engine. " + rollupsNote,
                options: windowOptions + [
                    .value("by", help: "Slice by channel,platform,app_version,campaign,day,provider", default: ""),
                    sourceOption,
                    formatOption([.table, .json, .csv, .markdown], default: .table),
                ] + ColumnChoice.options),
            CommandSpec(
                "prompt-timing", summary: "Permission prompt timing cohorts compared with real statistics",
                options: windowOptions + [
                    .value("experiment", help: "Experiment whose first exposure defines the cohorts", default: "push_prompt_timing"),
                    .value("baseline", help: "Cohort the others are compared with (default: first_screen, else the first by name)"),
                    .flag("as-treated", help: "Cohorts by the placement of the first system prompt instead of the experiment arm"),
                    .value("platform", type: .choice(["ios", "android"]), help: "Only installations of this platform"),
                    formatOption([.table, .json, .csv, .markdown], default: .table),
                ] + ColumnChoice.options),
            CommandSpec(
                "rejections", summary: "Provider rejections by reason, token invalidations, sends to known-invalid tokens",
                options: windowOptions + [formatOption([.table, .json, .csv, .markdown], default: .table)] + ColumnChoice.options),
            CommandSpec(
                "provider-check", summary: "FCM's Aggregated Delivery Data beside what devices confirmed, per Los Angeles day",
                discussion: "FCM reports per day in America/Los_Angeles; --from/--to are those days (dates in Los Angeles time), --week the ISO week's Monday to Sunday. gap_pp = FCM delivered % minus confirmed delivery %. Import FCM's data first: pushledger import fcm-delivery-data.",
                options: [
                    .value("app", help: "The app id to report on", environment: "PUSHLEDGER_APP", required: true),
                    .value("from", type: .timestamp, help: "First Los Angeles day, e.g. 2026-11-23 (default: 7 days before --to)"),
                    .value("to", type: .timestamp, help: "Day after the last, exclusive (default: today in Los Angeles)"),
                    .value("week", type: .week, help: "An ISO week such as 2026-W48 instead of --from/--to"),
                    .value("by", type: .choice(["day", "campaign"]), help: "One row per day, or per day and campaign", default: "day"),
                    .value("as-of", type: .timestamp, help: "Evaluate as of this time; nothing later counts (default: now)"),
                    .value("window", type: .duration, help: "Confirmation window: accepted sends younger than this are pending",
                           default: OutcomeRules.defaultConfirmationSpan.description),
                    formatOption([.table, .json, .csv, .markdown], default: .table),
                ] + ColumnChoice.options),
            CommandSpec(
                "weekly", summary: "The weekly report with week-over-week changes (reads the rollups)",
                discussion: "Reads the rollups as of their last refresh; never refreshed, it says to run `pushledger rollup`. Works as a read-only login (role pushledger_reader) and on a hot standby (--read-database-url). " + rollupsNote,
                options: [
                    .value("app", help: "The app id to report on", environment: "PUSHLEDGER_APP", required: true),
                    .value("week", type: .week, help: "ISO week, e.g. 2026-W48 (default: the last full week)"),
                    .value("experiment", help: "Experiment for the prompt-timing section", default: "push_prompt_timing"),
                    formatOption([.markdown, .html, .json, .text], default: .markdown),
                ] + ColumnChoice.options),
        ])

    static func run(_ context: CommandContext) throws -> Int32 {
        let command = context.command
        let format = try command.choice(ReportFormat.self, "format")
        let columns = try command.columnChoice()
        if command.path.last == "weekly" {
            let app = try command.value(String.self, "app")
            let week = try command.optional(ISOWeek.self, "week") ?? ISOWeek(containing: Date()).previous
            let experiment = try command.value(String.self, "experiment")
            context.logger.info("weekly report", ["week": week.description, "app": app])
            let connection = try context.connectForReading()
            return try report(context) {
                try WeeklyReport.run(connection: connection, app: app, week: week, experiment: experiment)
                    .rendered(format, columns: columns)
            }
        }
        if command.path.last == "provider-check" {
            let check = try providerCheck(command)
            let connection = try context.connectForReading()
            return try report(context) { try check(connection).rendered(format, columns: columns) }
        }
        let window = try query(command)
        switch command.path.last {
        case "prompt-timing":
            let options = PromptTimingReport.Options(
                experiment: try command.value(String.self, "experiment"), baseline: command.string("baseline"),
                asTreated: command.flag("as-treated"), platform: command.string("platform"))
            let connection = try context.connectForReading()
            return try report(context) {
                try PromptTimingReport.run(connection: connection, query: window, options: options).rendered(format, columns: columns)
            }
        case "rejections":
            let connection = try context.connectForReading()
            return try report(context) { try RejectionsReport.run(connection: connection, query: window).rendered(format, columns: columns) }
        default:
            let by = command.string("by") ?? ""
            let source = try silentLossSource(command)
            let connection = try context.connectForReading()
            return try report(context) {
                try SilentLossReport.run(connection: connection, query: window, by: ReportDimension.parseList(by), source: source)
                    .rendered(format, columns: columns)
            }
        }
    }

    /// Prints what `body` renders; a report error becomes the command's failure.
    static func report(_ context: CommandContext, _ body: () throws -> String) throws -> Int32 {
        do {
            context.print(try body())
        } catch let error as ReportError {
            throw CommandFailure(report: error)
        }
        return 0
    }

    /// `report provider-check`: Los Angeles days from `--week` or `--from`/`--to`; the options are
    /// read now, the report runs on the connection it is given.
    static func providerCheck(_ command: ParsedCommand) throws -> (Connection) throws -> ProviderCheckReport {
        let zone = ProviderCheckReport.timeZone
        let from: CivilDate, to: CivilDate
        if let week = try command.optional(ISOWeek.self, "week") {
            guard command.string("from") == nil, command.string("to") == nil else {
                throw CommandFailure(report: ReportError.invalidQuery("give either --week or --from/--to, not both"))
            }
            from = CivilDate(week.start())
            to = CivilDate(daysSinceEpoch: from.daysSinceEpoch + 7)
        } else {
            to = command.timestamp("to", timeZone: zone).map { CivilDate($0, in: zone) } ?? CivilDate(Date(), in: zone)
            from = command.timestamp("from", timeZone: zone).map { CivilDate($0, in: zone) } ?? CivilDate(daysSinceEpoch: to.daysSinceEpoch - 7)
        }
        let app = try command.value(String.self, "app")
        let byCampaign = try command.value(String.self, "by") == "campaign"
        let asOf = try command.optional(Date.self, "as-of") ?? Date()
        let window = try command.value(TimeSpan.self, "window").timeInterval
        return { connection in
            try ProviderCheckReport.run(
                connection: connection, app: app, from: from, to: to, byCampaign: byCampaign, asOf: asOf, confirmationWindow: window)
        }
    }

    /// `--source`; the rollups answer as of their refresh, so a fixed `--as-of` is the engine's.
    static func silentLossSource(_ command: ParsedCommand) throws -> ReportSource {
        let source = try command.choice(ReportSource.self, "source")
        guard command.string("as-of") != nil else { return source }
        if source == .rollups {
            throw CommandFailure(report: ReportError.invalidQuery("--source rollups answers as of the rollups' refresh: drop --as-of or use --source engine"))
        }
        return .engine
    }

    /// The window of `--week`, or `--from`/`--to` (default: the 7 days before `--as-of`); checked
    /// when a report runs.
    static func query(_ command: ParsedCommand) throws -> ReportQuery {
        let app = try command.value(String.self, "app")
        let asOf = try command.optional(Date.self, "as-of") ?? Date()
        let window = try command.value(TimeSpan.self, "window").timeInterval
        if let week = try command.optional(ISOWeek.self, "week") {
            guard command.string("from") == nil, command.string("to") == nil else {
                throw CommandFailure(report: ReportError.invalidQuery("give either --week or --from/--to, not both"))
            }
            return ReportQuery(app: app, from: week.start(), to: week.end(), asOf: asOf, confirmationWindow: window)
        }
        let to = try command.optional(Date.self, "to") ?? asOf
        let from = try command.optional(Date.self, "from") ?? to - .days(7)
        return ReportQuery(app: app, from: from, to: to, asOf: asOf, confirmationWindow: window)
    }
}

enum QueryCommand: Command {
    static let spec = CommandSpec(
        "query", summary: "Quick answers for engineers on call",
        subcommands: [
            CommandSpec(
                "silent-loss", summary: "Silent loss over the last --since of settled sends (ending a confirmation window ago)",
                discussion: "From the rollups the window ends a confirmation window before their refresh; a window holding no whole UTC day (e.g. 24h) is the engine's. " + rollupsNote,
                options: [
                    .value("app", help: "The app id", environment: "PUSHLEDGER_APP", required: true),
                    .value("since", type: .duration, help: "How far back, e.g. 24h or 7d", default: "24h"),
                    .value("by", help: "Slice by channel,platform,app_version,campaign,day,provider", default: "channel"),
                    sourceOption,
                ] + ColumnChoice.options)
        ])

    static func run(_ context: CommandContext) throws -> Int32 {
        let command = context.command
        let app = try command.value(String.self, "app")
        let since = try command.value(TimeSpan.self, "since").timeInterval
        let by = try command.value(String.self, "by")
        let columns = try command.columnChoice()
        let source = try command.choice(ReportSource.self, "source")
        let connection = try context.connectForReading()
        return try ReportCommand.report(context) {
            try SilentLossReport.quick(connection: connection, app: app, since: since, by: ReportDimension.parseList(by),
                                       source: source)
                .quickText(columns: columns)
        }
    }
}

enum RollupCommand: Command {
    static let spec = CommandSpec(
        "rollup", summary: "Bring the daily rollups up to date with what arrived since the last refresh (once, or --follow)",
        discussion: "By default only the sends the new data affects are judged again and the rollups move by the difference; --full recomputes every send and every rollup from scratch (after a repair or a change of definitions). The summary says how many sends were reclassified. The only command that refreshes the rollups the reports read; run it on the primary. --follow keeps running and refreshes every half --freshness (back to back when a pass takes longer), so the rollups stay within --freshness of what was committed: one follower leads at a time across processes (a Postgres advisory lock; a second one waits as a hot spare), a pass is one transaction (a pass cut short by a kill or a lost connection leaves nothing), a lost database is retried with backoff, and SIGTERM or SIGINT finishes the pass in progress and exits 0 (a second signal abandons it). Each pass and each change of state is a log line on stderr; --metrics-listen serves pushledger_rollup_lag_seconds and friends for Prometheus. Run it as the systemd unit deploy/systemd/pushledger-rollup-follow.service (docs/operations/README.md); SELECT * FROM pushledger_rollup_status() shows the lag too.",
        options: [.value("format", type: .choice(["text", "json"]), help: "Output format (without --follow)", default: "text"),
                  .flag("full", help: "Recompute everything from scratch instead of what arrived since the last refresh"),
                  .flag("follow", help: "Keep running: refresh continuously within --freshness, until SIGTERM/SIGINT"),
                  .value("freshness", type: .duration, help: "With --follow: how far behind what was committed the rollups may fall", default: "60s"),
                  .value("metrics-listen", help: "With --follow: serve Prometheus /metrics here (plain HTTP)", environment: "PUSHLEDGER_ROLLUP_METRICS_LISTEN", placeholder: "host:port"),
                  ShardsCommand.appOption])

    static func run(_ context: CommandContext) throws -> Int32 {
        if context.command.flag("follow") { return try follow(context) }
        guard context.command.string("metrics-listen") == nil else { throw OptionError("--metrics-listen needs --follow") }
        let json = try context.command.value(String.self, "format") == "json"
        return try context.eachShard { context in
            let connection = try context.connect()
            return try ReportCommand.report(context) {
                let summary = try ReportRollups.refresh(connection: connection, full: context.command.flag("full"))
                return json ? summary.json.jsonText(pretty: true) : summary.text
            }
        }
    }

    /// `--follow`: runs the follower until a signal, with its metrics endpoint when asked.
    static func follow(_ context: CommandContext) throws -> Int32 {
        let command = context.command
        guard !command.flag("full") else { throw OptionError("--full rebuilds once: it cannot be combined with --follow") }
        let freshness = try command.value(TimeSpan.self, "freshness").timeInterval
        guard freshness >= 1 else { throw OptionError("--freshness must be at least 1s") }
        guard context.directoryURL == nil else {
            throw OptionError("--follow runs on one database: start one follower per shard with --database-url")
        }
        let url = context.databaseURL
        let logger = context.logger.named("rollup")
        let follower = RollupFollower(freshness: freshness, logger: logger) { try Connection.connect(url: url) }
        var endpoint: MetricsEndpoint?
        if let listen = command.string("metrics-listen") {
            let address = try ServeCommand.address(listen, flag: "metrics-listen")
            do {
                endpoint = try MetricsEndpoint(host: address.host, port: address.port) { followerMetrics(follower) }
            } catch {
                throw CommandFailure(message: error.description)
            }
            logger.info("metrics listening", ["address": "\(address.host):\(endpoint!.port)"])
        }
        let watcher = SignalWatcher(signals: [SIGTERM, SIGINT]) { signal, count in
            if count == 1 {
                logger.info("signal received, stopping after the pass in progress", ["signal": "\(signal)"])
                follower.stop()
            } else {
                // Closing the connection rolls the pass back: nothing of it is applied.
                logger.info("second signal, abandoning the pass in progress", ["signal": "\(signal)"])
                exit(0)
            }
        }
        follower.run()
        watcher.cancel()
        endpoint?.stop()
        return 0
    }

    /// The follower's Prometheus metrics: the lag, what waits, the last pass, who leads.
    static func followerMetrics(_ follower: RollupFollower) -> String {
        let snapshot = follower.snapshot
        var families: [MetricFamily] = [
            .gauge("pushledger_rollup_freshness_seconds", help: "The freshness target the follower refreshes within (--freshness).",
                   [([], follower.freshness)]),
            .gauge("pushledger_rollup_follower_leading", help: "1 when this follower holds the lock and refreshes; 0 standing by or unreachable.",
                   [([], snapshot.state == .leading ? 1 : 0)]),
            .counter("pushledger_rollup_passes_total", help: "Refresh passes this follower completed.", [([], Double(snapshot.passes))]),
            .counter("pushledger_rollup_failures_total", help: "Connections lost or passes failed (each retried with backoff).",
                     [([], Double(snapshot.failures))]),
        ]
        if let lag = snapshot.lagSeconds(), let status = snapshot.status {
            families.append(.gauge("pushledger_rollup_lag_seconds",
                                   help: "Age of the oldest committed input not yet rolled up (0: caught up), from pushledger_rollup_status().",
                                   [([], lag)]))
            families.append(.gauge("pushledger_rollup_pending_inputs", help: "Queued input changes the next pass takes.",
                                   [([], Double(status.pendingInputs))]))
            if let seconds = status.lastPassSeconds {
                families.append(.gauge("pushledger_rollup_last_pass_seconds", help: "How long the last refresh's transaction ran.",
                                       [([], seconds)]))
            }
        }
        return Prometheus.render(families)
    }
}

extension CommandFailure {
    /// Report errors: a bad query is bad usage (64); a lost database connection is 2 (see
    /// `init(connection:)`); anything else is a failure (1).
    init(report error: ReportError) {
        if let database = error.databaseError, database.isConnectionProblem {
            self.init(connection: database)
            message = "\(error.description): \(message)"
            return
        }
        self.init(message: error.description, exitCode: error.kind == .invalidQuery ? 64 : 1, detail: error.debugDescription)
    }
}
