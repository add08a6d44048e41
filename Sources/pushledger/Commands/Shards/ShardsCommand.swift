import CommandLineParsing
import Foundation
import OutcomeEngine
import Postgres
import PushLedgerRules
import Store
import TableRendering

/// `pushledger shards`: the shard map of the directory database.
struct ShardsCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "shards", summary: "The shards of a sharded deployment (needs --directory-url)",
            discussion: """
                Each shard is an ordinary PushLedger database (migrated by pushledger migrate --directory-url); each \
                app lives on one shard, placed with pushledger apps place. See docs/operations/scaling.md.
                """,
            subcommands: [
                ShardsAddCommand.self, ShardsListCommand.self, ShardsSyncCommand.self, ShardsTotalsCommand.self,
            ])
    }

    /// A directory refusal as the command's one-line error.
    static func refusals<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as ShardDirectory.Failure {
            if case .badShardName = failure { throw CommandFailure(message: failure.description, exitCode: .usage) }
            throw CommandFailure(message: failure.description)
        }
    }

    /// Regenerates the fleet-wide tables after a change of the map; a directory without
    /// postgres_fdw (or a superuser) keeps working for everything else, with a warning.
    static func sync(_ context: CommandContext, _ directory: Connection) {
        do {
            try FleetReads().sync(directory: directory, sql: MigrationSource(directory: context.sqlDirectory()))
        } catch {
            context.logger.warning("fleet-wide tables not regenerated (pushledger shards sync)", ["error": "\(error)"])
        }
    }

    /// A URL without its password, for listings and logs.
    static func redacted(_ url: String) -> String { ConnectionURL.redacted(url) }
}

/// `pushledger shards add NAME URL`.
struct ShardsAddCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration("add", summary: "Add a migrated database as a shard")
    }

    @Argument(help: "Shard name: a lowercase letter, then letters, digits or _")
    var name: String

    @Argument(help: "libpq URL of the shard's primary")
    var url: String

    func run(_ context: CommandContext) throws -> Int32 {
        let directory = try context.connectDirectory()
        try ShardsCommand.refusals { try ShardDirectory().addShard(name: name, url: url, on: directory) }
        context.logger.info("shard added", ["shard": name])
        ShardsCommand.sync(context, directory)
        return 0
    }
}

/// `pushledger shards list`.
struct ShardsListCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration("list", summary: "List the shards with their apps")
    }

    @Option(help: "Output format", default: .table, choices: [.table, .json, .csv])
    var format: TableFormat

    func run(_ context: CommandContext) throws -> Int32 {
        let directory = try context.connectDirectory()
        let placements = try ShardDirectory().placements(on: directory)
        let rows: [[Cell]] = try ShardDirectory().shards(on: directory).map { shard in
            let apps = placements.filter { $0.value == shard.name }.keys.sorted()
            return [
                .text(shard.name), .text(ShardsCommand.redacted(shard.url)), .integer(apps.count),
                .text(apps.joined(separator: " ")),
            ]
        }
        try context.printTable(format: format, headers: ["shard", "url", "apps", "app_ids"], rows: rows)
        return 0
    }
}

/// `pushledger shards sync`.
struct ShardsSyncCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "sync", summary: "Regenerate the directory's fleet-wide tables (postgres_fdw) from the shard map",
            discussion:
                "Done by shards add, apps place and apps move too. Needs a superuser on the directory (postgres_fdw).")
    }

    func run(_ context: CommandContext) throws -> Int32 {
        try FleetReads().sync(
            directory: context.connectDirectory(), sql: MigrationSource(directory: context.sqlDirectory()))
        return 0
    }
}

/// `pushledger shards totals --from D --to D`.
struct ShardsTotalsCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "totals", summary: "Send outcome counts per app across every shard, read through the directory",
            discussion: """
                Sums the daily rollups of whole UTC days in [--from, --to) per app; each shard aggregates its own apps \
                (the grouping is pushed down), only one row per app travels. Run pushledger rollup first: the rollups \
                are as fresh as their last refresh.
                """)
    }

    @Option(help: "First day (UTC)")
    var from: Date

    @Option(help: "Day after the last (UTC)")
    var to: Date

    @Flag(help: "Print the query plan instead (EXPLAIN VERBOSE)")
    var plan: Bool

    @Option(help: "Output format", default: .table, choices: [.table, .json, .csv, .markdown])
    var format: TableFormat

    @OptionGroup var columns: ColumnOptions

    func run(_ context: CommandContext) throws -> Int32 {
        let directory = try context.connectDirectory()
        if plan {
            context.print(try FleetReads().plan(from: from, to: to, on: directory))
            return 0
        }
        let totals = try FleetReads().totals(from: from, to: to, on: directory)
        let all = totals.reduce(into: [String: Int]()) { sum, app in sum.merge(app.counts, uniquingKeysWith: +) }
        let rows = (totals.map { ($0.appID, $0.counts) } + [("all apps", all)]).map { app, counts -> [Cell] in
            [.text(app)] + FleetReads.counted.map { .integer(counts[$0] ?? 0) }
        }
        try context.printTable(
            format: format, headers: ["app"] + FleetReads.counted, rows: rows,
            key: ["app"]
                + ([.sends, .accepted, .received, .opened, .blockedApp, .blockedChannel, .unconfirmed, .rejected]
                as [OutcomeCounter]).map(\.rawValue),
            columns: try columns.choice())
        return 0
    }
}
