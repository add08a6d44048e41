import Foundation
import Postgres
import PushLedgerRules

/// Fleet-wide reads on the directory, which doubles as a postgres_fdw coordinator over the
/// shards: schema `fleet` holds one table per rollup, partitioned by `app_id` with each shard's
/// foreign table as the partition of the apps placed on it, generated from the shard map by
/// `sync`. A query grouped by `app_id` is aggregated on every shard at once (partitionwise
/// aggregates, asynchronous foreign scans); only the per-app rows travel. Nothing is ever
/// written through it: every write is a local transaction on the app's shard.
public struct FleetReads: Sendable {
    /// The rollups the coordinator exposes (the reports' inputs), and the receipts the
    /// silent-loss report reads for the hours of a window outside whole days (none for whole days).
    public static let tables = [
        "send_rollups_daily", "send_rejections_daily", "open_landings_daily", "instrumented_slices_daily",
        "prompt_cohorts_daily", "notification_receipts",
    ]

    /// The definition files (sql/definitions.list) installed in schema `fleet` too, so the
    /// fleet-wide reports call the very functions a shard's reports call, over `fleet.*`: the
    /// column lists (outcome counters, causes, latency buckets) are the shards' own.
    public static let reportDefinitions = [
        "engine/day.sql", "engine/outcome_counters.sql", "views/rates.sql", "reports/weekly.sql",
        "reports/silent_loss_rollups.sql",
    ]

    public init() {}

    /// Foreign server, user mapping and imported rollups of every shard, and the `fleet`
    /// tables partitioned by the current placements; run after every change of the map.
    /// Needs a superuser on the directory (postgres_fdw is not a trusted extension). `sql`: the
    /// project's SQL, whose ``reportDefinitions`` are installed in `fleet`.
    public func sync(directory: Connection, sql: MigrationSource) throws {
        let map = ShardDirectory()
        let shards = try map.shards(on: directory)
        let placements = try map.placements(on: directory)
        try directory.transaction { connection in
            try connection.executeScript(
                "create extension if not exists postgres_fdw; drop schema if exists fleet cascade; create schema fleet")
            for shard in shards {
                let server = "pl_shard_\(shard.name)", schema = "fleet_shard_\(shard.name)"
                guard let options = Self.serverOptions(shard.url) else {
                    throw FleetFailure.unreadableURL(shard: shard.name)
                }
                try connection.executeScript(
                    """
                    drop server if exists \(server) cascade;
                    create server \(server) foreign data wrapper postgres_fdw
                        options (\(options.server), async_capable 'true', fetch_size '10000');
                    create user mapping for current_user server \(server) options (\(options.user));
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
            // Function bodies name the shards' tables unqualified: with `fleet` first on the
            // search path (``prepareReads(on:)``) they read the fleet tables. `fleet` alone here,
            // so that a definition's `drop function if exists` never reaches another schema. The
            // reader role is the one a shard's migrations create; rates.sql grants it its view.
            try connection.executeScript(
                """
                do $$ begin
                    if not exists (select 1 from pg_roles where rolname = 'pushledger_reader') then
                        create role pushledger_reader nologin;
                    end if;
                end $$;
                set local search_path = fleet;
                set local check_function_bodies = off
                """)
            for path in Self.reportDefinitions {
                guard let definition = sql.definitions.first(where: { $0.path == path }) else {
                    throw FleetFailure.missingDefinition(path)
                }
                try connection.executeScript(definition.sql)
            }
        }
    }

    /// Why the fleet tables could not be generated.
    public enum FleetFailure: Error, CustomStringConvertible {
        /// A definition the fleet needs is not in sql/definitions.list.
        case missingDefinition(String)
        /// The shard's URL is no libpq URI (`postgres://…`).
        case unreadableURL(shard: String)

        public var description: String {
            switch self {
            case .missingDefinition(let path): "\(path) is not in sql/definitions.list"
            case .unreadableURL(let shard):
                "the URL of shard '\(shard)' is not a libpq URI (postgres://user@host:port,host:port/database?…)"
            }
        }
    }

    /// Makes `directory` read the fleet: `fleet` first on the search path (the report
    /// functions and tables the sync installed), partitionwise aggregates on.
    public func prepareReads(on directory: Connection) throws {
        try directory.executeScript("set search_path = fleet, public; set enable_partitionwise_aggregate = on")
    }

    /// The foreign server's options of a libpq URL (every connection option of its hosts,
    /// database and parameters, a host list as libpq's comma-separated `host` and `port`), and
    /// the user mapping's (`user`, `password`, `sslpassword`); nil when `url` is no libpq URI.
    /// postgres_fdw sets `client_encoding` and `fallback_application_name` itself and refuses them.
    public static func serverOptions(_ url: String) -> (server: String, user: String)? {
        guard let parts = ConnectionURL(url) else { return nil }
        var server: [(String, String)] = [], user: [(String, String)] = []
        func set(_ list: inout [(String, String)], _ name: String, _ value: String) {
            list.removeAll { $0.0 == name }
            list.append((name, value))
        }
        if !parts.endpoints.isEmpty {
            set(&server, "host", parts.endpoints.map(\.host).joined(separator: ","))
            if parts.endpoints.contains(where: { $0.port != nil }) {
                set(&server, "port", parts.endpoints.map { $0.port ?? "" }.joined(separator: ","))
            }
        }
        if let database = parts.database, !database.isEmpty { set(&server, "dbname", database) }
        if let name = parts.user { set(&user, "user", name) }
        if let password = parts.password { set(&user, "password", password) }
        for (name, value) in parts.parameters where !["client_encoding", "fallback_application_name"].contains(name) {
            if ["user", "password", "sslpassword"].contains(name) {
                set(&user, name, value)
            } else {
                set(&server, name, value)
            }
        }
        if !user.contains(where: { $0.0 == "user" }) {
            user.insert(("user", ProcessInfo.processInfo.environment["PGUSER"] ?? "postgres"), at: 0)
        }
        if server.isEmpty { server = [("dbname", "postgres")] }
        func options(_ list: [(String, String)]) -> String {
            // Names quoted too: a URL's parameter names are not trusted SQL.
            list.map { "\"\($0.0.replacingOccurrences(of: "\"", with: "\"\""))\" \(AppMove.literal($0.1))" }
                .joined(separator: ", ")
        }
        return (options(server), options(user))
    }

    /// One app's send outcome counts over whole UTC days (from the rollups).
    public struct AppTotals: Sendable, Equatable {
        public let appID: String
        public let counts: [String: Int]
    }

    /// The outcome counts the rollups hold, summed per app.
    public static let counted = OutcomeCounter.allCases.map(\.rawValue)

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
