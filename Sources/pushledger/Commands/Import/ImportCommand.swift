import CommandLineParsing

/// `pushledger import`: a sender's log of results, or FCM's delivery data.
struct ImportCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "import", summary: "Load a sender's NDJSON log of APNs/FCM results, or FCM's delivery data",
            subcommands: [ImportSendsCommand.self, ImportFCMDeliveryDataCommand.self])
    }
}
