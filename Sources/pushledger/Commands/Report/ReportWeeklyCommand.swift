import CommandLineParsing
import Foundation
import PushLedgerSupport
import Reports

/// `pushledger report weekly`: the weekly report with week-over-week changes, from the rollups.
struct ReportWeeklyCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "weekly", summary: "The weekly report with week-over-week changes (reads the rollups)",
            discussion: """
                Reads the rollups as of their last refresh; never refreshed, it says to run `pushledger rollup`. Works \
                as a read-only login (role pushledger_reader) and on a hot standby (--read-database-url). With \
                --directory-url and no --app: every app summed, read through the directory (docs/operations/scaling.md).
                """ + " " + ReportCommand.rollupsNote)
    }

    @Option(
        help: "The app id to report on (with --directory-url, without it: every app, the sections that add up)",
        environment: "PUSHLEDGER_APP")
    var app: String?

    @Option(help: "ISO week, e.g. 2026-W48 (default: the last full week)")
    var week: ISOWeek?

    @Option(help: "Experiment for the prompt-timing section", default: "push_prompt_timing")
    var experiment: String

    @Option(help: "Output format", default: .markdown, choices: [.markdown, .html, .json, .text])
    var format: ReportFormat

    @OptionGroup var columns: ColumnOptions

    func run(_ context: CommandContext) throws -> Int32 {
        let columns = try self.columns.choice()
        let week = self.week ?? ISOWeek(containing: Date()).previous
        context.logger.info("weekly report", ["week": week.description, "app": app ?? ReportScope.fleetName])
        if let fleet = try context.fleetReading() {
            return try ReportCommand.report(context) {
                try WeeklyReport.fleet(directory: fleet.directory, week: week, rollups: fleet.rollups).rendered(
                    format, columns: columns)
            }
        }
        let connection = try context.connectForReading()
        return try ReportCommand.report(context) {
            try WeeklyReport.run(connection: connection, app: app ?? "", week: week, experiment: experiment)
                .rendered(format, columns: columns)
        }
    }
}
