import CommandLineParsing
import PushLedgerSupport
import Reports

/// `pushledger query silent-loss`: silent loss over the last `--since` of settled sends.
struct QuerySilentLossCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "silent-loss",
            summary: "Silent loss over the last --since of settled sends (ending a confirmation window ago)",
            discussion: """
                From the rollups the window ends a confirmation window before their refresh; a window holding no whole \
                UTC day (e.g. 24h) is the engine's.
                """ + " " + ReportCommand.rollupsNote)
    }

    @Option(help: "The app id", environment: "PUSHLEDGER_APP")
    var app: String

    @Option(help: "How far back, e.g. 24h or 7d", default: .hours(24))
    var since: TimeSpan

    @Option(help: ReportDimension.helpText, default: "channel")
    var by: String

    @OptionGroup var source: SourceOption

    @OptionGroup var columns: ColumnOptions

    func run(_ context: CommandContext) throws -> Int32 {
        let columns = try self.columns.choice()
        let connection = try context.connectForReading()
        return try ReportCommand.report(context) {
            try SilentLossReport.quick(
                connection: connection, app: app, since: since.timeInterval, by: ReportDimension.parseList(by),
                source: source.source
            ).quickText(columns: columns)
        }
    }
}
