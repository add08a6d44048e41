import Foundation
import Postgres
import TestSupport

/// Hand-built fleets for alert tests, written straight into the tables with set-based SQL.
/// Everything is deterministic: which send gets a receipt depends only on its index.
struct AlertFleet {
    let connection: Connection
    let app: String
    let platform: String
    let installations: Int

    /// Day `n` of the test calendar (day 0 is 2026-11-01, UTC midnight).
    static func day(_ n: Double) -> Date {
        Date(timeIntervalSince1970: 1_793_491_200 + n * 86_400)
    }

    /// A new database with every migration, and a fleet of `installations` that can display,
    /// each with a snapshot (channels orders and promotions enabled) at day 0.
    static func make(
        app: String = "com.example.shop", platform: String = "android", installations: Int = 200
    ) throws -> AlertFleet {
        let connection = try Connection.connect(url: TestDatabase.fresh(prefix: "alert"))
        let fleet = AlertFleet(connection: connection, app: app, platform: platform, installations: installations)
        try fleet.addInstallations()
        return fleet
    }

    func addInstallations() throws {
        let at = Self.day(0)
        try connection.execute(
            """
            insert into installations (app_id, installation_id, platform, first_seen_at, last_seen_at, \
            last_received_at, app_version)
            select \(app), md5(\(app) || 'inst' || i)::uuid, \(platform), \(at), \(at), \(at), '5.0'
              from generate_series(1, \(installations)) i
            """)
        try snapshot(at: at, blockedTenths: 0, channel: "promotions")
    }

    /// A settings snapshot of every installation at `at`; on Android, `channel` is blocked
    /// (importance 0) for installations whose number ends in 0 ..< blockedTenths.
    func snapshot(at: Date, blockedTenths: Int, channel: String) throws {
        let ios = platform == "ios"
        try connection.execute(
            """
            insert into settings_snapshots (app_id, event_id, installation_id, platform, app_version,
                authorization_status, notifications_enabled, channel_count, at, occurred_at, received_at)
            select \(app), md5(\(app) || 'snap' || i || \(at.timeIntervalSince1970))::uuid, md5(\(app) || 'inst' || \
            i)::uuid,
                   \(platform), '5.0', case when \(ios) then 'authorized' end, case when not \(ios) then true end,
                   case when not \(ios) then 2 end, \(at), \(at), \(at)
              from generate_series(1, \(installations)) i
            """)
        try touchInstallations()
        guard !ios else { return }
        try connection.execute(
            """
            insert into channel_states (app_id, snapshot_event_id, installation_id, channel_id, importance, \
            occurred_at, received_at)
            select \(app), md5(\(app) || 'snap' || i || \(at.timeIntervalSince1970))::uuid, md5(\(app) || 'inst' || \
            i)::uuid,
                   c, case when c = \(channel) and i % 10 < \(blockedTenths) then 0 else 3 end, \(at), \(at)
              from generate_series(1, \(installations)) i, unnest(array['orders', 'promotions']) c
            """)
    }

    /// `perDay` sends a day on `channel` over [from, to), spread evenly, to installations in
    /// turn. A send gets a receipt one minute later unless it is among the `silentPermille`
    /// per mille picked by its index, or its installation is blocked (number ending in 0 ..<
    /// `blockedTenths`). `rejectPermille` per mille are rejected with `rejectStatus`/`rejectReason`.
    /// `messageKind`: the FCM message kind the sender reported (contract v1.3).
    func sends(
        channel: String, from: Double, to: Double, perDay: Int, silentPermille: Int = 30, blockedTenths: Int = 0,
        provider: String = "fcm", rejectPermille: Int = 0, rejectStatus: Int = 429,
        rejectReason: String = "QUOTA_EXCEEDED", messageKind: String? = nil
    ) throws {
        let start = Self.day(from)
        let count = Int((to - from) * Double(perDay))
        let step = 86_400 / Double(perDay)
        let generated: SQL = """
            select k, i, \(start) + k * make_interval(secs => \(step)) as sent_at,
                   md5(\(app) || \(channel) || \(from) || 'n' || k)::uuid as notification_id,
                   case when (k * 7919) % 1000 < \(rejectPermille) then \(rejectStatus) else 200 end as status
              from generate_series(0, \(count - 1)) k, lateral (select (k % \(installations)) + 1 as i) x
            """
        try connection.execute(
            """
            insert into sends (app_id, event_id, notification_id, provider, token, installation_id, resolved_by,
                               channel, sent_at, status, reason, received_at, message_kind)
            select \(app), md5(\(app) || \(channel) || \(from) || 'e' || k)::uuid, notification_id, \(provider), 'tok' \
            || i,
                   md5(\(app) || 'inst' || i)::uuid, 'explicit', \(channel), sent_at, status,
                   case when status <> 200 then \(rejectReason) end, sent_at, \(messageKind)
              from (\(generated)) g
            """)
        try connection.execute(
            """
            insert into notification_receipts (app_id, event_id, installation_id, platform, app_version,
                                               notification_id, channel, displayed, at, occurred_at, received_at)
            select \(app), md5(\(app) || \(channel) || \(from) || 'r' || k)::uuid, md5(\(app) || 'inst' || i)::uuid,
                   \(platform), '5.0', notification_id, \(channel), true,
                   sent_at + interval '1 minute', sent_at + interval '1 minute', sent_at + interval '1 minute'
              from (\(generated)) g
             where status = 200 and (k * 104729) % 1000 >= \(silentPermille) and i % 10 >= \(blockedTenths)
            """)
        try touchInstallations()
        try analyze()
    }

    /// `perDay` first system prompts a day over [from, to) for new installations, `grantedPercent`
    /// of them granted.
    func prompts(from: Double, to: Double, perDay: Int, grantedPercent: Int) throws {
        let start = Self.day(from)
        let count = Int((to - from) * Double(perDay))
        try connection.execute(
            """
            insert into permission_prompts (app_id, event_id, installation_id, platform, placement, prompt, result,
                                            at, occurred_at, received_at)
            select \(app), md5(\(app) || 'prompt' || \(from) || k)::uuid, md5(\(app) || 'prompted' || \(from) || \
            k)::uuid,
                   \(platform), 'first_screen', 'system',
                   case when (k * 37) % 100 < \(grantedPercent) then 'granted' else 'denied' end, t, t, t
              from generate_series(0, \(count - 1)) k,
                   lateral (select \(start) + k * make_interval(secs => \(86_400 / Double(perDay))) as t) x
            """)
        try analyze()
    }

    /// What the writer does for every telemetry event: installations remember the latest receipt.
    func touchInstallations() throws {
        try connection.execute(
            """
            update installations i set last_received_at = greatest(i.last_received_at, t.latest)
              from (select installation_id, max(received_at) as latest from (
                        select installation_id, received_at from notification_receipts where app_id = \(app)
                        union all
                        select installation_id, received_at from settings_snapshots where app_id = \(app)) e
                     group by installation_id) t
             where i.app_id = \(app) and i.installation_id = t.installation_id
            """)
    }

    /// Fresh bulk loads have no planner statistics; without them the outcome engine's plans
    /// are orders of magnitude slower (autovacuum would analyze a production database).
    func analyze() throws {
        try connection.executeScript("analyze")
    }
}
