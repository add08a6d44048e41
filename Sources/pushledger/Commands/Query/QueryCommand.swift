import CommandLineParsing

/// `pushledger query`: quick answers for engineers on call.
struct QueryCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "query", summary: "Quick answers for engineers on call", subcommands: [QuerySilentLossCommand.self])
    }
}
