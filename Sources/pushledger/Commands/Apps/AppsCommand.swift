import CommandLineParsing

/// `pushledger apps`: the identities an app's association files must name.
struct AppsCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "apps", summary: "The identities an app's association files must name; where an app lives (place, move)",
            discussion: """
                iOS app IDs (TEAMID.bundle.id) for apple-app-site-association; Android packages with their \
                signing-certificate SHA-256 fingerprints for assetlinks.json. Several of each (debug and release).
                """,
            subcommands: [AppsSetCommand.self, AppsShowCommand.self, AppsPlaceCommand.self, AppsMoveCommand.self])
    }
}
