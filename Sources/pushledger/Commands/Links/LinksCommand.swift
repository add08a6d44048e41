import CommandLineParsing

/// `pushledger links`: the association files behind tapped links.
struct LinksCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "links", summary: "Check the association files behind tapped links",
            discussion: """
                Why taps land on the wrong screen: fetches apple-app-site-association and assetlinks.json as the OS \
                does and judges them for the app.
                """,
            subcommands: [LinksCheckCommand.self])
    }
}
