import Foundation
import Postgres
import PushLedgerCLI
import Reports

/// `pushledger alert check|list`. Exit status of `check` is like diff's: 0 nothing firing,
/// 1 at least one alert firing, 2 trouble (bad rules file, database unreachable, webhook failed).
enum AlertCommand: Command {
    static let spec = CommandSpec(
        "alert", summary: "Check delivery regressions and list alert history",
        subcommands: [
            CommandSpec(
                "check", summary: "Evaluate the regression rules; exit 0 none firing, 1 firing, 2 trouble",
                discussion: "Rules: silent_loss_up, rejections_up, confirmed_delivery_down, opt_in_down, ingest_stale (metrics.md). A repeated check records and notifies only transitions (firing/resolved). See docs/alerting.md for the rules file.",
                options: [
                    .value("rules", help: "JSON rules file overriding the built-in defaults", placeholder: "file"),
                    .value("at", type: .timestamp, help: "Evaluate as of this time (default: now)"),
                    .value("format", type: .choice(AlertOutputFormat.allCases.map(\.rawValue)), help: "Output format", default: "text"),
                    .value("webhook", help: "POST each transition as JSON (Slack-compatible text) to this http:// URL", environment: "PUSHLEDGER_ALERT_WEBHOOK", placeholder: "url"),
                    ShardsCommand.appOption,
                ]),
            CommandSpec(
                "list", summary: "Show firing/resolved transitions",
                options: [
                    .value("since", type: .timestamp, help: "Only transitions at or after this time"),
                    .value("format", type: .choice(AlertOutputFormat.allCases.map(\.rawValue)), help: "Output format", default: "text"),
                    ShardsCommand.appOption,
                ]),
        ])

    static func run(_ context: CommandContext) throws -> Int32 {
        try context.eachShard(runOne)
    }

    private static func runOne(_ context: CommandContext) throws -> Int32 {
        let command = context.command
        let format = try command.choice(AlertOutputFormat.self, "format")
        if command.path.last == "list" {
            do {
                let history = try AlertStateStore.history(since: command.optional(Date.self, "since"), connection: context.connectForReading())
                context.print(AlertOutput.render(history: history, format: format))
                return 0
            } catch let error as AlertError {
                throw CommandFailure(message: error.description, exitCode: 2, detail: error.debugDescription)
            }
        }
        let at = try command.optional(Date.self, "at") ?? Date()
        do throws(AlertError) {
            let rules = try command.string("rules").map { path throws(AlertError) in try AlertRulesFile.load(path: path) } ?? .builtIn
            let webhook = try command.string("webhook").map { url throws(AlertError) in try AlertWebhook(url: url) }
            // Findings are read from the standby when one is configured; alert state is written on the primary.
            let connection: Connection, reading: Connection?
            do {
                connection = try Connection.connect(url: context.databaseURL)
                reading = try context.readDatabaseURL.map { url throws(PostgresError) in try Connection.connect(url: url) }
            } catch { throw AlertError(error) }
            let outcome = AlertChecker(rules: rules).run(
                connection: connection, reading: reading, at: at, webhook: webhook)
            if let result = outcome.result { context.print(AlertOutput.render(result, format: format)) }
            for problem in outcome.problems {
                context.logger.debug("alert check problem", ["detail": problem.debugDescription])
                FileHandle.standardError.write(Data("pushledger alert: \(problem.description)\n".utf8))
            }
            return outcome.exitStatus.rawValue
        } catch {
            context.logger.debug("alert check failed", ["detail": error.debugDescription])
            FileHandle.standardError.write(Data("pushledger alert: \(error.description)\n".utf8))
            return AlertExitStatus.trouble.rawValue
        }
    }
}
