import CommandLineParsing
import OutcomeEngine
import Reports

/// `pushledger report silent-loss`: outcome counts and silent-loss rates, from the rollups or the engine.
struct ReportSilentLossCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "silent-loss", summary: "Outcome counts and silent-loss rates of sends, optionally sliced",
            discussion: """
                Answered from the rollups (whole UTC days; the outcome engine for the window's other hours) or by the \
                engine over the exact window; the output says which. With --as-of or --window other than 24h, auto \
                uses the engine. With --directory-url and no --app: every app, read from the rollups through the \
                directory (docs/operations/scaling.md).
                """ + " " + ReportCommand.rollupsNote)
    }

    @OptionGroup var window: WindowOptions

    @Option(help: ReportDimension.helpText, default: "")
    var by: String

    @OptionGroup var source: SourceOption

    @OptionGroup var output: ReportTableFormat

    @OptionGroup var columns: ColumnOptions

    func run(_ context: CommandContext) throws -> Int32 {
        let columns = try self.columns.choice()
        let query = try window.query()
        let source = try silentLossSource()
        if let fleet = try context.fleetReading() {
            guard source != .engine else {
                throw CommandFailure(
                    report: ReportError.invalidQuery(
                        """
                        every app of a sharded deployment is read from the rollups: drop --source engine and --as-of, \
                        or name --app
                        """))
            }
            return try ReportCommand.report(context) {
                try SilentLossReport.fleet(
                    directory: fleet.directory, query: query, by: ReportDimension.parseList(by), rollups: fleet.rollups
                )
                .rendered(output.format, columns: columns)
            }
        }
        let connection = try context.connectForReading()
        return try ReportCommand.report(context) {
            try SilentLossReport.run(
                connection: connection, query: query, by: ReportDimension.parseList(by), source: source
            )
            .rendered(output.format, columns: columns)
        }
    }

    /// `--source`; the rollups answer as of their refresh, so a fixed `--as-of` is the engine's.
    func silentLossSource() throws -> ReportSource {
        guard window.asOf != nil else { return source.source }
        if source.source == .rollups {
            throw CommandFailure(
                report: ReportError.invalidQuery(
                    "--source rollups answers as of the rollups' refresh: drop --as-of or use --source engine"))
        }
        return .engine
    }
}
