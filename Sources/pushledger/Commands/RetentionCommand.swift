import CommandLineParsing
import Foundation
import PushLedgerSupport
import Store

/// `pushledger retention`: drops whole partitions older than `--keep`.
struct RetentionCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "retention", summary: "Drop whole partitions of events older than --keep",
            discussion: """
                Sends, snapshots, channel states, receipts and opens are partitioned by month or day (`pushledger \
                partitions`); a partition is dropped only when all of it is older than the cut-off.
                """)
    }

    @Option(help: "How much history to keep, e.g. 400d")
    var keep: TimeSpan

    @Flag(help: "Also create partitions for the next \(Retention.partitionsAhead) (as the writer does on demand)")
    var ensureAhead: Bool

    @OptionGroup var shards: ShardChoice

    func run(_ context: CommandContext) throws -> Int32 {
        let days = keep.seconds / 86_400
        guard days >= 1 else { throw CommandFailure(message: "--keep must be at least one day", exitCode: .usage) }
        let ensureAhead = ensureAhead
        return try context.eachShard { context in try Self.apply(days: days, ensureAhead: ensureAhead, context) }
    }

    private static func apply(days: Int, ensureAhead: Bool, _ context: CommandContext) throws -> Int32 {
        let connection = try context.connect()
        if ensureAhead {
            let created = try Retention.ensurePartitions(
                from: Date(), to: Date() + Retention.partitionsAhead, on: connection)
            for name in created { context.logger.info("partition created", ["partition": name]) }
        }
        let removed = try Retention(days: days).apply(on: connection)
        for r in removed {
            context.print("dropped \(r.kind.rawValue) \(r.object)" + (r.rowCount.map { " (\($0) rows)" } ?? ""))
        }
        if removed.isEmpty { context.print("nothing older than \(days) days") }
        return 0
    }
}
