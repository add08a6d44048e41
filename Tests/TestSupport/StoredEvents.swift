import Postgres

/// Checks on what the event tables hold, shared by the suites that post real traffic.
public enum StoredEvents {
    /// Rows of the event tables beyond one per (app, event id): 0 when nothing is stored twice.
    public static func storedTwice(_ connection: Connection) throws -> Int {
        try connection.query(
            """
            select (count(*) - count(distinct (app_id, event_id)))::int8 from (
                select app_id, event_id from settings_snapshots union all
                select app_id, event_id from permission_prompts union all
                select app_id, event_id from experiment_exposures union all
                select app_id, event_id from notification_receipts union all
                select app_id, event_id from notification_opens union all
                select app_id, event_id from token_registrations union all
                select app_id, event_id from sends) stored
            """)[0].decode(0)
    }
}
