import Foundation
import Postgres
import PushLedgerCLI
import PushLedgerSupport
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
            CommandSpec(
                "sync", summary: "Regenerate the directory's fleet-wide tables (postgres_fdw) from the shard map",
                discussion: "Done by shards add, apps place and apps move too. Needs a superuser on the directory (postgres_fdw)."),
            CommandSpec(
                "totals", summary: "Send outcome counts per app across every shard, read through the directory",
                discussion: "Sums the daily rollups of whole UTC days in [--from, --to) per app; each shard aggregates its own apps (the grouping is pushed down), only one row per app travels. Run pushledger rollup first: the rollups are as fresh as their last refresh.",
                options: [
                    .value("from", type: .timestamp, help: "First day (UTC)", required: true),
                    .value("to", type: .timestamp, help: "Day after the last (UTC)", required: true),
                    .flag("plan", help: "Print the query plan instead (EXPLAIN VERBOSE)"),
                    .value("format", type: .choice(["table", "json", "csv", "markdown"]), help: "Output format", default: "table"),
                ] + ColumnChoice.options),
        ])

    static func run(_ context: CommandContext) throws -> Int32 {
        let directory = try context.connectDirectory()
        return try refusals {
            switch context.command.path.last {
            case "add":
                let name = try context.command.argument("name"), url = try context.command.argument("url")
                try ShardDirectory().addShard(name: name, url: url, on: directory)
                context.logger.info("shard added", ["shard": name])
                sync(context, directory)
            case "sync":
                try FleetReads().sync(directory: directory)
            case "totals":
                let from = try context.command.value(Date.self, "from"), to = try context.command.value(Date.self, "to")
                if context.command.flag("plan") {
                    context.print(try FleetReads().plan(from: from, to: to, on: directory))
                    return 0
                }
                let totals = try FleetReads().totals(from: from, to: to, on: directory)
                let all = totals.reduce(into: [String: Int]()) { sum, app in sum.merge(app.counts, uniquingKeysWith: +) }
                let rows = (totals.map { ($0.appID, $0.counts) } + [("all apps", all)]).map { app, counts -> [Cell] in
                    [.text(app)] + FleetReads.counted.map { .integer(counts[$0] ?? 0) }
                }
                try context.printTable(
                    format: context.command.string("format")!, headers: ["app"] + FleetReads.counted, rows: rows,
                    key: ["app", "sends", "accepted", "received", "opened", "blocked_app", "blocked_channel", "unconfirmed", "rejected"])
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
        CommandSpec(
            "move", summary: "Move an app to another shard while it keeps posting (needs --directory-url)",
            discussion: "Copies the app's rows by logical replication filtered to the app, pauses its writes briefly (its requests get 503 with Retry-After, which the SDKs and senders honour), waits for the copy to catch up, compares every table's row count, flips the shard map and removes the app's rows from the old shard. A move cut short is recorded in the directory: run the same command again to resume it, or --rollback to undo it before the flip. Needs wal_level=logical on the old shard and a superuser on the new one (it creates a subscription).",
            options: [
                .value("to", help: "The shard to move the app to", placeholder: "name"),
                .flag("rollback", help: "Undo a move that has not flipped yet: drop the copy, the app stays where it is"),
                .value("catch-up-limit", type: .duration, help: "How long the paused app may wait for the copy to catch up before the move gives up and unpauses it", default: "30s"),
                .value("format", type: .choice(["text", "json"]), help: "Output format", default: "text"),
            ],
            positionals: [PositionalSpec("app", help: "The app id")]),
    ]

    /// Runs `apps place|move`; nil for the other `apps` subcommands.
    static func runApps(_ context: CommandContext) throws -> Int32? {
        if context.command.path.last == "move" { return try move(context) }
        guard context.command.path.last == "place" else { return nil }
        let directory = try context.connectDirectory()
        return try refusals {
            let app = try context.command.argument("app")
            let shard = context.command.string("shard")!
            try ShardDirectory().place(app: app, shard: shard, on: directory)
            context.logger.info("app placed", ["app": app, "shard": shard])
            sync(context, directory)
            return 0
        }
    }

    /// `apps move APP --to NAME` (or `--rollback`).
    static func move(_ context: CommandContext) throws -> Int32 {
        let command = context.command
        guard let directory = context.directoryURL else { throw OptionError("apps move needs --directory-url (or PUSHLEDGER_DIRECTORY_URL)") }
        let app = try command.argument("app")
        var move = AppMove(app: app, directoryURL: directory)
        move.catchUpLimit = try command.value(TimeSpan.self, "catch-up-limit").timeInterval
        let logger = context.logger
        move.progress = { line in logger.info(line, ["app": app]) }
        do {
            if command.flag("rollback") {
                guard command.string("to") == nil else { throw OptionError("--rollback takes no --to") }
                try refusals { try move.rollback() }
                return 0
            }
            guard let target = command.string("to") else { throw OptionError("name the shard: --to NAME (or --rollback)") }
            let report = try refusals { try move.run(to: target) }
            sync(context, try context.connectDirectory())
            if command.string("format") == "json" {
                let json: JSONValue = [
                    "app": .string(report.app), "from": .string(report.from), "to": .string(report.to), "rows": .int(report.rows),
                    "deleted_from_source": .int(report.deletedFromSource), "copy_seconds": .double(report.copySeconds),
                    "pause_seconds": .double(report.pauseSeconds), "total_seconds": .double(report.totalSeconds),
                ]
                context.print(json.jsonText(pretty: true))
            } else {
                context.print(String(
                    format: "moved %@ from %@ to %@: %d rows; copy %.2f s, writes paused %.3f s, %.2f s in all",
                    report.app, report.from, report.to, report.rows, report.copySeconds, report.pauseSeconds, report.totalSeconds))
            }
            return 0
        } catch let failure as AppMove.Failure {
            throw CommandFailure(message: failure.description)
        }
    }

    /// Regenerates the fleet-wide tables after a change of the map; a directory without
    /// postgres_fdw (or a superuser) keeps working for everything else, with a warning.
    static func sync(_ context: CommandContext, _ directory: Connection) {
        do {
            try FleetReads().sync(directory: directory)
        } catch {
            context.logger.warning("fleet-wide tables not regenerated (pushledger shards sync)", ["error": "\(error)"])
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
