import CommandLineParsing
import Foundation
import OutcomeEngine
import PushLedgerRules
import PushLedgerSupport
import Reports

/// `pushledger report`: the reports over the outcome engine and the rollups.
struct ReportCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "report", summary: "Silent loss, prompt timing, rejections and the weekly report",
            discussion:
                "Windows are [from, to) in UTC. An empty window gives an empty report. Definitions: docs/metrics.md.",
            subcommands: [
                ReportSilentLossCommand.self, ReportPromptTimingCommand.self, ReportRejectionsCommand.self,
                ReportProviderCheckCommand.self, ReportWeeklyCommand.self,
            ])
    }

    /// How the reports get their figures, for the commands' --help.
    static let rollupsNote = """
        Reports only read: they never refresh the rollups. `pushledger rollup --follow` does, kept running as a \
        service (docs/operations/README.md); a report from the rollups says how fresh they are.
        """

    /// Prints what `body` renders; a report error becomes the command's failure.
    static func report(_ context: CommandContext, _ body: () throws -> String) throws -> Int32 {
        do {
            context.print(try body())
        } catch let error as ReportError {
            throw CommandFailure(report: error)
        }
        return 0
    }
}

/// Options every windowed report shares: which app, which window, as of when.
struct WindowOptions: ParsableArguments {
    @Option(
        help: "The app id to report on (with --directory-url, silent-loss without it reports every app)",
        environment: "PUSHLEDGER_APP")
    var app: String?

    @Option(help: "Window start, ISO 8601 date or time, UTC (default: 7 days before --to)")
    var from: Date?

    @Option(help: "Window end, exclusive (default: --as-of)")
    var to: Date?

    @Option(help: "An ISO week such as 2026-W48 instead of --from/--to")
    var week: ISOWeek?

    @Option(help: "Evaluate as of this time; nothing later counts (default: now)")
    var asOf: Date?

    @OptionGroup var confirmation: ConfirmationOption

    /// The window of `--week`, or `--from`/`--to` (default: the 7 days before `--as-of`);
    /// checked when a report runs.
    func query() throws -> ReportQuery {
        let asOf = self.asOf ?? Date()
        let confirmation = self.confirmation.window.timeInterval
        if let week {
            guard from == nil, to == nil else {
                throw CommandFailure(report: ReportError.invalidQuery("give either --week or --from/--to, not both"))
            }
            return ReportQuery(
                app: app ?? "", from: week.start(), to: week.end(), asOf: asOf, confirmationWindow: confirmation)
        }
        let to = self.to ?? asOf
        let from = self.from ?? to - .days(7)
        return ReportQuery(app: app ?? "", from: from, to: to, asOf: asOf, confirmationWindow: confirmation)
    }
}

/// `--window`: how long an accepted send may wait for its receipt before it counts as lost.
struct ConfirmationOption: ParsableArguments {
    @Option(
        help: "Confirmation window: accepted sends younger than this are pending",
        default: OutcomeRules.defaultConfirmationSpan)
    var window: TimeSpan
}

/// `--format` of the tabular reports.
struct ReportTableFormat: ParsableArguments {
    @Option(help: "Output format", default: .table, choices: [.table, .json, .csv, .markdown])
    var format: ReportFormat
}

/// `--source`: who answers a silent-loss query (`SilentLossReport.plan`).
struct SourceOption: ParsableArguments {
    @Option(
        help: """
            Who answers: rollups (as of their last `pushledger rollup`), engine (classifies the window now), auto: \
            rollups when the window holds a whole UTC day
            """,
        default: ReportSource.auto)
    var source: ReportSource
}

extension CommandFailure {
    /// Report errors, with the status the error names; a lost database connection says what
    /// happened to the interrupted work (`init(connection:)`).
    init(report error: ReportError) {
        if let database = error.databaseError, database.isConnectionProblem {
            self.init(connection: database)
            message = "\(error.description): \(message)"
            return
        }
        self.init(
            message: error.description, exitCode: error.exitCode, detail: error.debugDescription)
    }
}
