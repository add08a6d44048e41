import Foundation
import Postgres

/// Fleet-wide reads on the directory, which doubles as a postgres_fdw coordinator over the
/// shards: schema `fleet` holds one table per rollup, partitioned by `app_id` with each shard's
/// foreign table as the partition of the apps placed on it, generated from the shard map by
/// `sync`. A query grouped by `app_id` is aggregated on every shard at once (partitionwise
/// aggregates, asynchronous foreign scans); only the per-app rows travel. Nothing is ever
/// written through it: every write is a local transaction on the app's shard.
public struct FleetReads: Sendable {
    /// The rollups the coordinator exposes (the reports' inputs; no events).
    public static let tables = [
        "send_rollups_daily", "send_rejections_daily", "open_landings_daily", "instrumented_slices_daily",
        "prompt_cohorts_daily",
    ]

    public init() {}

    /// Foreign server, user mapping and imported rollups of every shard, and the `fleet`
    /// tables partitioned by the current placements; run after every change of the map.
    /// Needs a superuser on the directory (postgres_fdw is not a trusted extension).
    public func sync(directory: Connection) throws {
        let map = ShardDirectory()
        let shards = try map.shards(on: directory)
        let placements = try map.placements(on: directory)
        try directory.transaction { connection in
            try connection.executeScript(
                "create extension if not exists postgres_fdw; drop schema if exists fleet cascade; create schema fleet")
            for shard in shards {
                let server = "pl_shard_\(shard.name)", schema = "fleet_shard_\(shard.name)"
                let (options, user) = Self.serverOptions(shard.url)
                try connection.executeScript(
                    """
                    drop server if exists \(server) cascade;
                    create server \(server) foreign data wrapper postgres_fdw options (\(options), async_capable \
                    'true', fetch_size '10000');
                    create user mapping for current_user server \(server) options (\(user));
                    drop schema if exists \(schema) cascade;
                    create schema \(schema);
                    import foreign schema public limit to (\(Self.tables.joined(separator: ", "))) from server \
                    \(server) into \(schema)
                    """)
            }
            guard let first = shards.first else { return }
            for table in Self.tables {
                try connection.executeScript(
                    "create table fleet.\(table) (like fleet_shard_\(first.name).\(table)) partition by list (app_id)")
                for shard in shards {
                    let apps = placements.filter { $0.value == shard.name }.keys.sorted()
                    guard !apps.isEmpty else { continue }
                    try connection.executeScript(
                        """
                        alter table fleet.\(table) attach partition fleet_shard_\(shard.name).\(table) for values \
                        in (\(apps.map(AppMove.literal).joined(separator: ", ")))
                        """
                    )
                }
            }
        }
    }

    /// `host`, `port`, `dbname` options of a libpq URL, and the user mapping's `user`/`password`.
    static func serverOptions(_ url: String) -> (server: String, user: String) {
        let parts = URLComponents(string: url)
        var server: [String] = []
        if let host = parts?.host, !host.isEmpty { server.append("host \(AppMove.literal(host))") }
        if let port = parts?.port { server.append("port '\(port)'") }
        let database = String((parts?.path ?? "").drop { $0 == "/" })
        if !database.isEmpty { server.append("dbname \(AppMove.literal(database))") }
        for item in parts?.queryItems ?? [] where ["sslmode", "host", "port", "dbname"].contains(item.name) {
            if let value = item.value { server.append("\(item.name) \(AppMove.literal(value))") }
        }
        var user: [String] = []
        if let name = parts?.user { user.append("user \(AppMove.literal(name))") }
        if let password = parts?.password { user.append("password \(AppMove.literal(password))") }
        if user.isEmpty {
            user.append("user \(AppMove.literal(ProcessInfo.processInfo.environment["PGUSER"] ?? "postgres"))")
        }
        return (server.isEmpty ? "dbname 'postgres'" : server.joined(separator: ", "), user.joined(separator: ", "))
    }

    /// One app's send outcome counts over whole UTC days (from the rollups).
    public struct AppTotals: Sendable, Equatable {
        public let appID: String
        public let counts: [String: Int]
    }

    /// The outcome counts the rollups hold, summed per app.
    public static let counted = [
        "sends", "accepted", "rejected", "received", "opened", "pending", "blocked_app", "blocked_channel",
        "unattributed",
        "unconfirmed", "token_invalid", "to_invalid_token",
    ]

    /// The query of `totals`: per app, grouped by the partition key so each shard aggregates its
    /// own. No ORDER BY: PostgreSQL 15 then aggregates on the coordinator to sort (the caller sorts).
    static func totalsQuery(from: Date, to: Date) -> SQL {
        let sums = counted.map { "sum(\($0))::int8 as \($0)" }.joined(separator: ", ")
        return """
            select app_id, \(unsafeRaw: sums) from fleet.send_rollups_daily
             where day >= (\(from)::timestamptz at time zone 'UTC')::date and day < (\(to)::timestamptz at time zone \
            'UTC')::date
             group by app_id
            """
    }

    /// Per-app send totals of the days in [from, to) across every shard.
    public func totals(from: Date, to: Date, on directory: Connection) throws -> [AppTotals] {
        try directory.executeScript("set enable_partitionwise_aggregate = on")
        return try directory.query(Self.totalsQuery(from: from, to: to)).map { row in
            var counts: [String: Int] = [:]
            for name in Self.counted { counts[name] = try row.decode(name) }
            return AppTotals(appID: try row.decode("app_id"), counts: counts)
        }.sorted { $0.appID < $1.appID }
    }

    /// The plan of `totals` (EXPLAIN VERBOSE), to see the grouping pushed down to the shards.
    public func plan(from: Date, to: Date, on directory: Connection) throws -> String {
        try directory.executeScript("set enable_partitionwise_aggregate = on")
        return try directory.query("explain (verbose, costs off) \(Self.totalsQuery(from: from, to: to))").map {
            try $0.decode(0, as: String.self)
        }.joined(separator: "\n")
    }
}
