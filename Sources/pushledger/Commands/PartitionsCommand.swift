import CommandLineParsing
import Foundation
import Store

/// `pushledger partitions`: shows or sets how big new partitions of the event tables are.
struct PartitionsCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "partitions", summary: "Show or set the partition granularity of the event tables (monthly or daily)",
            discussion:
                """
                Sends, snapshots, channel states, receipts and opens are partitioned by time. Daily partitions suit \
                deployments whose month would hold billions of rows. A change applies to partitions created from then \
                on; existing ones stay, and retention drops either kind.
                """
        )
    }

    @Option(help: "Store this granularity")
    var granularity: PartitionGranularity?

    @OptionGroup var shards: ShardChoice

    func run(_ context: CommandContext) throws -> Int32 {
        let granularity = granularity
        return try context.eachShard { context in try Self.apply(granularity, context) }
    }

    private static func apply(_ granularity: PartitionGranularity?, _ context: CommandContext) throws -> Int32 {
        let connection = try context.connect()
        if let granularity {
            try granularity.store(on: connection)
        }
        context.print("partition granularity: \(try PartitionGranularity.current(on: connection).rawValue)")
        return 0
    }
}
