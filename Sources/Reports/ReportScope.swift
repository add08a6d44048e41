import Postgres

/// The apps a rollup read covers: one app on the database that holds it, or every app of a
/// sharded deployment read on its directory, whose schema `fleet` holds the shards' rollups
/// (postgres_fdw) and the same report functions (`FleetReads.sync`). The reports' SQL is the
/// same either way: only the call of the report function changes.
public enum ReportScope: Sendable, Equatable {
    case app(String)
    /// Every app placed on a shard (the directory's `app_placements`); counts are the apps'
    /// own answers summed per slice, rates recomputed from the sums.
    case fleet

    /// What a fleet-wide report names as its app.
    public static let fleetName = "all apps"

    /// `call` with the app, or for every placed app with its rows summed: `keys` are the
    /// slice columns (grouped), `sums` the count columns (added up).
    func rows(keys: [String], sums: [String], _ call: (SQL) -> SQL) -> SQL {
        switch self {
        case .app(let app):
            return call("\(app)")
        case .fleet:
            let keys = keys.joined(separator: ", ")
            let sums = sums.map { "sum(\($0))::int8 as \($0)" }.joined(separator: ", ")
            return """
                (select \(unsafeRaw: keys), \(unsafeRaw: sums)
                   from app_placements p cross join lateral \(call("p.app_id")) f
                  group by \(unsafeRaw: keys) order by \(unsafeRaw: keys)) f
                """
        }
    }
}
