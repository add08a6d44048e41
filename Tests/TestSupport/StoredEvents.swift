import Postgres

/// The tables holding stored events (one row per stored event, telemetry and sends) and the
/// checks on them shared by the suites that post real traffic.
public enum StoredEvents {
    public static let telemetryTables = [
        "settings_snapshots", "permission_prompts", "experiment_exposures", "notification_receipts",
        "notification_opens", "token_registrations",
    ]

    /// `select app_id, event_id from T union all …` over `tables`, for checks of what is stored once.
    public static func unionAll(_ tables: [String] = telemetryTables + ["sends"]) -> String {
        tables.map { "select app_id, event_id from \($0)" }.joined(separator: " union all ")
    }

    /// Rows of the event tables beyond one per (app, event id): 0 when nothing is stored twice.
    public static func storedTwice(_ connection: Connection) throws -> Int {
        try connection.query(
            "select (count(*) - count(distinct (app_id, event_id)))::int8 from (\(unsafeRaw: unionAll())) stored")[0]
            .decode(0)
    }
}
