import CommandLineParsing

/// `pushledger alert check|list`. Exit status of `check` is like diff's: 0 nothing firing,
/// 1 at least one alert firing, 2 trouble (bad rules file, database unreachable, webhook failed).
struct AlertCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "alert", summary: "Check delivery regressions and list alert history",
            subcommands: [AlertCheckCommand.self, AlertListCommand.self])
    }
}
