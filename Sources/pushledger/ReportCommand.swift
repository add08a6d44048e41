import Foundation
import Postgres
import PushLedgerSupport
import PushLedgerCLI
import Reports

/// Options every report shares: which app, which window, as of when, which format.
private let windowOptions: [OptionSpec] = [
    .value("app", help: "The app id to report on", environment: "PUSHLEDGER_APP", required: true),
    .value("from", type: .timestamp, help: "Window start, ISO 8601 date or time, UTC (default: 7 days before --to)"),
    .value("to", type: .timestamp, help: "Window end, exclusive (default: --as-of)"),
    .value("week", type: .week, help: "An ISO week such as 2026-W48 instead of --from/--to"),
    .value("as-of", type: .timestamp, help: "Evaluate as of this time; nothing later counts (default: now)"),
    .value("window", type: .duration, help: "Confirmation window: accepted sends younger than this are pending", default: "24h"),
]

private func formatOption(_ formats: [ReportFormat], default value: ReportFormat) -> OptionSpec {
    .value("format", type: .choice(formats.map(\.rawValue)), help: "Output format", default: value.rawValue)
}

enum ReportCommand: Command {
    static let spec = CommandSpec(
        "report", summary: "Silent loss, prompt timing, rejections and the weekly report",
        discussion: "Windows are [from, to) in UTC. An empty window gives an empty report. Definitions: docs in README \"Metric definitions\".",
        subcommands: [
            CommandSpec(
                "silent-loss", summary: "Outcome counts and silent-loss rates of sends, optionally sliced",
                options: windowOptions + [
                    .value("by", help: "Slice by channel,platform,app_version,campaign,day,provider", default: ""),
                    formatOption([.table, .json, .csv, .markdown], default: .table),
                ]),
            CommandSpec(
                "prompt-timing", summary: "Permission prompt timing cohorts compared with real statistics",
                options: windowOptions + [
                    .value("experiment", help: "Experiment whose first exposure defines the cohorts", default: "push_prompt_timing"),
                    .value("baseline", help: "Cohort the others are compared with (default: first_screen, else the first by name)"),
                    .flag("as-treated", help: "Cohorts by the placement of the first system prompt instead of the experiment arm"),
                    .value("platform", type: .choice(["ios", "android"]), help: "Only installations of this platform"),
                    formatOption([.table, .json, .csv, .markdown], default: .table),
                ]),
            CommandSpec(
                "rejections", summary: "Provider rejections by reason, token invalidations, sends to known-invalid tokens",
                options: windowOptions + [formatOption([.table, .json, .csv, .markdown], default: .table)]),
            CommandSpec(
                "weekly", summary: "The weekly report with week-over-week changes (reads the rollups)",
                discussion: "Refreshes the rollups first; with --read-database-url (a standby, which cannot write) it reads them as of their last refresh instead: run `pushledger rollup` on the primary on a schedule.",
                options: [
                    .value("app", help: "The app id to report on", environment: "PUSHLEDGER_APP", required: true),
                    .value("week", type: .week, help: "ISO week, e.g. 2026-W48 (default: the last full week)"),
                    .value("experiment", help: "Experiment for the prompt-timing section", default: "push_prompt_timing"),
                    formatOption([.markdown, .html, .json, .text], default: .markdown),
                ]),
        ])

    static func run(_ context: CommandContext) throws -> Int32 {
        let command = context.command
        let connection = try context.connectForReading()
        let output: String
        do throws(ReportError) {
            let format = ReportFormat(rawValue: command.string("format")!)!
            switch command.path.last {
            case "weekly":
                let week = command.week("week") ?? ISOWeek(containing: Date()).previous
                context.logger.info("weekly report", ["week": week.description, "app": command.string("app")!])
                output = try WeeklyReport.run(connection: connection, app: command.string("app")!, week: week,
                                              experiment: command.string("experiment")!,
                                              refresh: context.readDatabaseURL == nil).rendered(format)
            case "prompt-timing":
                let options = PromptTimingReport.Options(
                    experiment: command.string("experiment")!, baseline: command.string("baseline"),
                    asTreated: command.flag("as-treated"), platform: command.string("platform"))
                output = try PromptTimingReport.run(connection: connection, query: try query(command), options: options).rendered(format)
            case "rejections":
                output = try RejectionsReport.run(connection: connection, query: try query(command)).rendered(format)
            default:
                let by = try ReportDimension.parseList(command.string("by") ?? "")
                output = try SilentLossReport.run(connection: connection, query: try query(command), by: by).rendered(format)
            }
        } catch {
            throw CommandFailure(report: error)
        }
        context.print(output)
        return 0
    }

    /// The window of `--week`, or `--from`/`--to` (default: the 7 days before `--as-of`).
    static func query(_ command: ParsedCommand) throws(ReportError) -> ReportQuery {
        let asOf = command.timestamp("as-of") ?? Date()
        let window = TimeInterval(command.duration("window")!.seconds)
        if let week = command.week("week") {
            guard command.string("from") == nil, command.string("to") == nil else {
                throw ReportError.invalidQuery("give either --week or --from/--to, not both")
            }
            return try ReportQuery(app: command.string("app")!, from: week.start(), to: week.end(), asOf: asOf, confirmationWindow: window).validated()
        }
        let to = command.timestamp("to") ?? asOf
        let from = command.timestamp("from") ?? to.addingTimeInterval(-7 * 86_400)
        return try ReportQuery(app: command.string("app")!, from: from, to: to, asOf: asOf, confirmationWindow: window).validated()
    }
}

enum QueryCommand: Command {
    static let spec = CommandSpec(
        "query", summary: "Quick answers for engineers on call",
        subcommands: [
            CommandSpec(
                "silent-loss", summary: "Silent loss over the last --since of settled sends (ending a confirmation window ago)",
                options: [
                    .value("app", help: "The app id", environment: "PUSHLEDGER_APP", required: true),
                    .value("since", type: .duration, help: "How far back, e.g. 24h or 7d", default: "24h"),
                    .value("by", help: "Slice by channel,platform,app_version,campaign,day,provider", default: "channel"),
                ])
        ])

    static func run(_ context: CommandContext) throws -> Int32 {
        let command = context.command
        let connection = try context.connectForReading()
        do throws(ReportError) {
            let by = try ReportDimension.parseList(command.string("by")!)
            let report = try SilentLossReport.quick(
                connection: connection, app: command.string("app")!, since: TimeInterval(command.duration("since")!.seconds), by: by)
            context.print(report.quickText)
        } catch {
            throw CommandFailure(report: error)
        }
        return 0
    }
}

enum RollupCommand: Command {
    static let spec = CommandSpec(
        "rollup", summary: "Recompute the daily rollups of days whose inputs changed (idempotent, safe during ingest)",
        options: [.value("format", type: .choice(["text", "json"]), help: "Output format", default: "text")])

    static func run(_ context: CommandContext) throws -> Int32 {
        let connection = try context.connect()
        do throws(ReportError) {
            let summary = try ReportRollups.refresh(connection: connection)
            context.print(context.command.string("format") == "json" ? summary.json.jsonText(pretty: true) : summary.text)
        } catch {
            throw CommandFailure(report: error)
        }
        return 0
    }
}

extension CommandFailure {
    /// Report errors: a bad query is bad usage (64); anything else is a failure (1).
    init(report error: ReportError) {
        self.init(message: error.description, exitCode: error.kind == .invalidQuery ? 64 : 1, detail: error.debugDescription)
    }
}
