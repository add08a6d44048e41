import OutcomeEngine
import Postgres
import Reports
import Store

extension CommandContext {
    /// With `--directory-url` and no `--app`: the directory ready for a fleet-wide report
    /// (``FleetReads/prepareReads(on:)``) and the shards' rollup freshness combined; nil otherwise.
    func fleetReading() throws -> (directory: Connection, rollups: RollupStatus)? {
        guard directoryURL != nil, app == nil else { return nil }
        let directory = try connectDirectory()
        let shards = try ShardsCommand.refusals { try ShardDirectory().shards(on: directory) }
        let statuses = try shards.map { shard in try RollupStatus.read(connection: connect(url: shard.url)) }
        try FleetReads().prepareReads(on: directory)
        return (directory, RollupStatus.combined(statuses))
    }
}
