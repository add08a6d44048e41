import CommandLineParsing
import Reports

/// `pushledger report rejections`: provider rejections, token invalidations, sends to known-invalid tokens.
struct ReportRejectionsCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "rejections", summary: "Provider rejections by reason, token invalidations, sends to known-invalid tokens")
    }

    @OptionGroup var window: WindowOptions

    @OptionGroup var output: ReportTableFormat

    @OptionGroup var columns: ColumnOptions

    func run(_ context: CommandContext) throws -> Int32 {
        let columns = try self.columns.choice()
        let query = try window.query()
        let connection = try context.connectForReading()
        return try ReportCommand.report(context) {
            try RejectionsReport.run(connection: connection, query: query).rendered(output.format, columns: columns)
        }
    }
}
