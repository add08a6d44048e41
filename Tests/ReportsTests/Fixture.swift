import Foundation
import Postgres
import TestSupport

/// Hand-built report fixtures written straight into a fresh database (every migration
/// applied), so each outcome rule and each report figure can be set up on purpose.
struct Fixture {
    static let app = "com.example.shop"
    let connection: Connection
    private var counter = 0
    /// Whether rows written here are queued for the refresh by hand, as every write path queues
    /// what it writes; a database of an earlier release queues them by its own triggers.
    private let queues: Bool

    /// On a fresh database, or on `url`'s.
    init(url: String? = nil) throws {
        connection = try Connection.connect(url: try url ?? TestDatabase.fresh(prefix: "rep"))
        queues = try connection.query(
            "select to_regprocedure('pushledger_queue_stored(text, text[], uuid[])') is not null as q")[0].decode("q")
    }

    /// Queues the row of `table` keyed `key` (its event_id; an installation's id) for the refresh.
    private func queue(_ table: String, _ key: UUID) throws {
        guard queues else { return }
        _ = try connection.query(
            "select pushledger_queue_stored(\(Self.app), array[\(table)::text], array[\(key)::uuid])")
    }

    /// A UUID whose first byte is `kind` and last group `n`: readable in failures.
    static func id(_ kind: UInt8, _ n: Int) -> UUID {
        UUID(uuidString: String(format: "%02x000000-0000-4000-8000-%012x", kind, n))!
    }

    /// A UTC time from its parts.
    static func time(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }

    private mutating func nextEvent() -> UUID {
        counter += 1
        return Self.id(0xe0, counter)
    }

    mutating func installation(_ id: UUID, platform: String, firstSeen: Date, appVersion: String? = "5.2.0") throws {
        try connection.execute(
            """
            insert into installations (app_id, installation_id, platform, first_seen_at, last_seen_at, \
            last_received_at, app_version)
            values (\(Self.app), \(id), \(platform), \(firstSeen), \(firstSeen), \(firstSeen), \(appVersion))
            """)
        try queue("installations", id)
    }

    struct Channel {
        var id: String
        var importance: Int
        var groupBlocked: Bool? = nil
    }

    /// A notification_settings snapshot; `channels` nil: the snapshot had no channels list.
    @discardableResult
    mutating func snapshot(
        _ installation: UUID, at: Date, platform: String, appVersion: String? = "5.2.0",
        authorization: String? = nil, alert: String? = nil, lockScreen: String? = nil, center: String? = nil,
        enabled: Bool? = nil, channels: [Channel]? = nil, receivedAt: Date? = nil, browser: String? = nil
    ) throws -> UUID {
        let event = nextEvent()
        try connection.execute(
            """
            insert into settings_snapshots (app_id, event_id, installation_id, platform, app_version, \
            authorization_status,
                alert_setting, lock_screen_setting, notification_center_setting, notifications_enabled, channel_count,
                at, occurred_at, received_at)
            values (\(Self.app), \(event), \(installation), \(platform), \(appVersion), \(authorization), \(alert), \
            \(lockScreen),
                    \(center), \(enabled), \(channels?.count), \(at), \(at), \(receivedAt ?? at))
            """)
        // Contract v1.3's web fields only where given: a database of an earlier release has none.
        if let browser {
            try connection.execute(
                """
                update settings_snapshots set browser = \(browser), browser_version = '131.0'
                 where app_id = \(Self.app) and event_id = \(event)
                """)
        }
        for channel in channels ?? [] {
            try connection.execute(
                """
                insert into channel_states (app_id, snapshot_event_id, installation_id, channel_id, importance, \
                group_id,
                    group_blocked, occurred_at, received_at)
                values (\(Self.app), \(event), \(installation), \(channel.id), \(channel.importance),
                        \(channel.groupBlocked == nil ? nil : "grp"), \(channel.groupBlocked), \(at), \
                \(receivedAt ?? at))
                """)
        }
        try queue("settings_snapshots", event)
        return event
    }

    /// One send attempt; returns its event_id. `installation` nil with `resolvedBy: "unresolved"`
    /// models a token that resolves to no installation.
    @discardableResult
    mutating func send(
        notification: UUID, installation: UUID?, at: Date, provider: String = "fcm", token: String = "tok",
        channel: String = "orders", campaign: String? = "order_update", status: Int = 200, reason: String? = nil,
        resolvedBy: String? = nil, pushType: String? = nil, mutableContent: Bool? = nil, messageKind: String? = nil,
        pushService: String? = nil
    ) throws -> UUID {
        let event = nextEvent()
        try connection.execute(
            """
            insert into sends (app_id, event_id, notification_id, provider, token, installation_id, resolved_by, \
            channel,
                campaign, sent_at, status, reason, received_at, push_type)
            values (\(Self.app), \(event), \(notification), \(provider), \(token), \(installation),
                    \(resolvedBy ?? (installation == nil ? "unresolved" : "explicit")), \(channel), \(campaign), \(at),
                    \(status), \(reason), \(at), \(pushType))
            """)
        // Contract v1.3's fields only where given: a database of an earlier release has no such columns.
        if mutableContent != nil || messageKind != nil {
            try connection.execute(
                """
                update sends set mutable_content = \(mutableContent), message_kind = \(messageKind)
                 where app_id = \(Self.app) and event_id = \(event)
                """)
        }
        if let pushService {
            try connection.execute(
                "update sends set push_service = \(pushService) where app_id = \(Self.app) and event_id = \(event)")
        }
        try queue("sends", event)
        return event
    }

    mutating func receipt(
        _ notification: UUID, installation: UUID, at: Date, platform: String, appVersion: String? = "5.2.0",
        displayed: Bool? = nil
    ) throws {
        let event = nextEvent()
        try connection.execute(
            """
            insert into notification_receipts (app_id, event_id, installation_id, platform, app_version, \
            notification_id,
                displayed, at, occurred_at, received_at)
            values (\(Self.app), \(event), \(installation), \(platform), \(appVersion), \(notification), \
            \(displayed),
                    \(at), \(at), \(at))
            """)
        try queue("notification_receipts", event)
    }

    mutating func open(
        _ notification: UUID, installation: UUID, at: Date, platform: String, landed: String? = nil
    ) throws {
        let event = nextEvent()
        try connection.execute(
            """
            insert into notification_opens (app_id, event_id, installation_id, platform, app_version, notification_id, \
            action,
                landed, at, occurred_at, received_at)
            values (\(Self.app), \(event), \(installation), \(platform), '5.2.0', \(notification), 'default', \
            \(landed),
                    \(at), \(at), \(at))
            """)
        try queue("notification_opens", event)
    }

    mutating func tokenRegistration(_ installation: UUID, token: String, provider: String = "fcm", at: Date) throws {
        let event = nextEvent()
        try connection.execute(
            """
            insert into token_registrations (app_id, event_id, installation_id, platform, provider, token, at, \
            occurred_at, received_at)
            values (\(Self.app), \(event), \(installation), 'android', \(provider), \(token), \(at), \(at), \(at))
            """)
        try queue("token_registrations", event)
    }

    mutating func prompt(
        _ installation: UUID, at: Date, placement: String, prompt: String = "system", result: String,
        platform: String = "android"
    ) throws {
        let event = nextEvent()
        try connection.execute(
            """
            insert into permission_prompts (app_id, event_id, installation_id, platform, placement, prompt, result, \
            at, occurred_at, received_at)
            values (\(Self.app), \(event), \(installation), \(platform), \(placement), \(prompt), \(result), \
            \(at), \(at), \(at))
            """)
        try queue("permission_prompts", event)
    }

    mutating func exposure(
        _ installation: UUID, at: Date, variant: String, experiment: String = "push_prompt_timing",
        platform: String = "android"
    ) throws {
        let event = nextEvent()
        try connection.execute(
            """
            insert into experiment_exposures (app_id, event_id, installation_id, platform, experiment, variant, at, \
            occurred_at, received_at)
            values (\(Self.app), \(event), \(installation), \(platform), \(experiment), \(variant), \(at), \
            \(at), \(at))
            """)
        try queue("experiment_exposures", event)
    }
}
