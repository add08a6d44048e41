import CommandLineParsing

/// `pushledger tokens`: push tokens as PushLedger knows them.
struct TokensCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "tokens", summary: "Push tokens as PushLedger knows them", subcommands: [TokensInvalidCommand.self])
    }
}
