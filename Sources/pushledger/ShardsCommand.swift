import Foundation
import Postgres
import PushLedgerCLI
import Store

/// `pushledger shards`: the shard map of the directory database.
enum ShardsCommand: Command {
    static let spec = CommandSpec(
        "shards", summary: "The shards of a sharded deployment (needs --directory-url)",
        discussion: "Each shard is an ordinary PushLedger database (migrated by pushledger migrate --directory-url); each app lives on one shard, placed with pushledger apps place. See docs/operations/scaling.md.",
        subcommands: [
            CommandSpec(
                "add", summary: "Add a migrated database as a shard",
                positionals: [PositionalSpec("name", help: "Shard name: a lowercase letter, then letters, digits or _"),
                              PositionalSpec("url", help: "libpq URL of the shard's primary")]),
            CommandSpec(
                "list", summary: "List the shards with their apps",
                options: [.value("format", type: .choice(["table", "json", "csv"]), help: "Output format", default: "table")]),
        ])

    static func run(_ context: CommandContext) throws -> Int32 {
        let directory = try context.connectDirectory()
        return try refusals {
            switch context.command.path.last {
            case "add":
                let name = try context.command.argument("name"), url = try context.command.argument("url")
                try ShardDirectory().addShard(name: name, url: url, on: directory)
                context.logger.info("shard added", ["shard": name])
            default:
                let placements = try ShardDirectory().placements(on: directory)
                let rows: [[Cell]] = try ShardDirectory().shards(on: directory).map { shard in
                    let apps = placements.filter { $0.value == shard.name }.keys.sorted()
                    return [.text(shard.name), .text(Self.redacted(shard.url)), .integer(apps.count), .text(apps.joined(separator: " "))]
                }
                try context.printTable(format: context.command.string("format")!, headers: ["shard", "url", "apps", "app_ids"], rows: rows)
            }
            return 0
        }
    }

    /// `--app` of the commands that run on every shard: only the shard holding this app.
    static let appOption = OptionSpec.value(
        "app", help: "With --directory-url: only the shard holding this app (default: every shard, side by side)", placeholder: "id")

    /// `apps place` and `apps move`, the subcommands `apps` takes from here.
    static let appSubcommands = [
        CommandSpec(
            "place", summary: "Place a new app on a shard (needs --directory-url)",
            options: [.value("shard", help: "The shard's name", required: true, placeholder: "name")],
            positionals: [PositionalSpec("app", help: "The app id")]),
    ]

    /// Runs `apps place|move`; nil for the other `apps` subcommands.
    static func runApps(_ context: CommandContext) throws -> Int32? {
        guard context.command.path.last == "place" else { return nil }
        let directory = try context.connectDirectory()
        return try refusals {
            let app = try context.command.argument("app")
            let shard = context.command.string("shard")!
            try ShardDirectory().place(app: app, shard: shard, on: directory)
            context.logger.info("app placed", ["app": app, "shard": shard])
            return 0
        }
    }

    /// A directory refusal as the command's one-line error.
    static func refusals<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as ShardDirectory.Failure {
            if case .badShardName = failure { throw CommandFailure(message: failure.description, exitCode: 64) }
            throw CommandFailure(message: failure.description)
        }
    }

    /// A URL without its password, for listings and logs.
    static func redacted(_ url: String) -> String {
        guard var parts = URLComponents(string: url), parts.password != nil else { return url }
        parts.password = "***"
        return parts.string ?? url
    }
}
