import CommandLineParsing
import Foundation
import Postgres
import Reports

/// `pushledger alert check`: evaluates the regression rules, records and notifies transitions.
struct AlertCheckCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "check", summary: "Evaluate the regression rules; exit 0 none firing, 1 firing, 2 trouble",
            discussion: """
                Rules: silent_loss_up, rejections_up, confirmed_delivery_down, opt_in_down, ingest_stale (metrics.md). \
                A repeated check records and notifies only transitions (firing/resolved). See docs/alerting.md for the \
                rules file.
                """)
    }

    @Option(help: "JSON rules file overriding the built-in defaults", placeholder: "file")
    var rules: String?

    @Option(help: "Evaluate as of this time (default: now)")
    var at: Date?

    @Option(help: "Output format", default: .text)
    var format: AlertOutputFormat

    @Option(
        help: "POST each transition as JSON (Slack-compatible text) to this http:// URL",
        environment: "PUSHLEDGER_ALERT_WEBHOOK", placeholder: "url")
    var webhook: String?

    @OptionGroup var shards: ShardChoice

    func run(_ context: CommandContext) throws -> Int32 {
        try context.eachShard(runOne)
    }

    private func runOne(_ context: CommandContext) throws -> Int32 {
        let at = self.at ?? Date()
        do throws(AlertError) {
            let rules =
                try self.rules.map { path throws(AlertError) in try AlertRulesFile.load(path: path) } ?? .builtIn
            let webhook = try self.webhook.map { url throws(AlertError) in try AlertWebhook(url: url) }
            // Findings are read from the standby when one is configured; alert state is written on the primary.
            let connection: Connection
            let reading: Connection?
            do {
                connection = try Connection.connect(url: context.databaseURL)
                reading = try context.readDatabaseURL.map { url throws(PostgresError) in
                    try Connection.connect(url: url)
                }
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
            return error.exitCode.rawValue
        }
    }
}
