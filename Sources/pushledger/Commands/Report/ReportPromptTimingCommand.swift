import CommandLineParsing
import PushLedgerContract
import Reports

/// `pushledger report prompt-timing`: permission prompt timing cohorts compared with real statistics.
struct ReportPromptTimingCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration("prompt-timing", summary: "Permission prompt timing cohorts compared with real statistics")
    }

    @OptionGroup var window: WindowOptions

    @Option(help: "Experiment whose first exposure defines the cohorts", default: "push_prompt_timing")
    var experiment: String

    @Option(help: "Cohort the others are compared with (default: first_screen, else the first by name)")
    var baseline: String?

    @Flag(help: "Cohorts by the placement of the first system prompt instead of the experiment arm")
    var asTreated: Bool

    @Option(help: "Only installations of this platform", choices: Platform.allCases.map(\.rawValue))
    var platform: String?

    @OptionGroup var output: ReportTableFormat

    @OptionGroup var columns: ColumnOptions

    func run(_ context: CommandContext) throws -> Int32 {
        let columns = try self.columns.choice()
        let query = try window.query()
        let options = PromptTimingReport.Options(
            experiment: experiment, baseline: baseline, asTreated: asTreated, platform: platform)
        let connection = try context.connectForReading()
        return try ReportCommand.report(context) {
            try PromptTimingReport.run(connection: connection, query: query, options: options).rendered(
                output.format, columns: columns)
        }
    }
}
