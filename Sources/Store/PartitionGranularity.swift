import Postgres

/// The time range of each new partition of the event tables (`pushledger_settings`): a month,
/// or a day for deployments whose month would hold billions of rows. The writer's partition
/// creation follows it; retention drops whatever partitions lie wholly before its cutoff, of
/// either kind, so switching affects only partitions created afterwards.
public enum PartitionGranularity: String, Sendable, CaseIterable {
    case monthly, daily

    /// The setting stored in the database.
    public static func current(on connection: Connection) throws -> PartitionGranularity {
        let text: String = try connection.query("select pushledger_partition_granularity() as g")[0].decode("g")
        return PartitionGranularity(rawValue: text) ?? .monthly
    }

    /// Stores the setting; partitions created from now on follow it.
    public func store(on connection: Connection) throws {
        try connection.execute("update pushledger_settings set partition_granularity = \(rawValue)")
    }
}
