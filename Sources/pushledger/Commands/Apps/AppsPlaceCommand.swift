import CommandLineParsing
import Store

/// `pushledger apps place APP --shard NAME`.
struct AppsPlaceCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration("place", summary: "Place a new app on a shard (needs --directory-url)")
    }

    @Argument(help: "The app id")
    var app: String

    @Option(help: "The shard's name", placeholder: "name")
    var shard: String

    func run(_ context: CommandContext) throws -> Int32 {
        let directory = try context.connectDirectory()
        try ShardsCommand.refusals { try ShardDirectory().place(app: app, shard: shard, on: directory) }
        context.logger.info("app placed", ["app": app, "shard": shard])
        ShardsCommand.sync(context, directory)
        return 0
    }
}
