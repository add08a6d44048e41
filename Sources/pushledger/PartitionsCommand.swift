import Foundation
import PushLedgerCLI
import Store

/// `pushledger partitions`: shows or sets how big new partitions of the event tables are.
enum PartitionsCommand: Command {
    static let spec = CommandSpec(
        "partitions", summary: "Show or set the partition granularity of the event tables (monthly or daily)",
        discussion: "Sends, snapshots, channel states, receipts and opens are partitioned by time. Daily partitions suit deployments whose month would hold billions of rows. A change applies to partitions created from then on; existing ones stay, and retention drops either kind.",
        options: [
            .value("granularity", type: .choice(PartitionGranularity.allCases.map(\.rawValue)), help: "Store this granularity"),
            ShardsCommand.appOption,
        ])

    static func run(_ context: CommandContext) throws -> Int32 {
        try context.eachShard(runOne)
    }

    private static func runOne(_ context: CommandContext) throws -> Int32 {
        let connection = try context.connect()
        if let text = context.command.string("granularity"), let granularity = PartitionGranularity(rawValue: text) {
            try granularity.store(on: connection)
        }
        context.print("partition granularity: \(try PartitionGranularity.current(on: connection).rawValue)")
        return 0
    }
}
