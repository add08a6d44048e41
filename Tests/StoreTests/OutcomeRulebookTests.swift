import Foundation
import Postgres
import PushLedgerContract
import PushLedgerRules
import TestSupport
import Testing

/// The truth table of Tests/Fixtures/outcome-rules.json, one row a case of metrics.md's outcome
/// rules, display state or rejection classes.
struct Rulebook: Decodable {
    struct Channel: Decodable {
        var id: String
        var importance: Int
        var group_blocked: Bool?
    }
    struct Snapshot: Decodable {
        var platform: Platform
        var notifications_enabled: Bool?
        var channels: [Channel]?
        var authorization_status: AuthorizationStatus?
        var alert_setting: NotificationSetting?
        var lock_screen_setting: NotificationSetting?
        var notification_center_setting: NotificationSetting?
        var push_permission_state: PushPermissionState?

        var settings: SettingsSnapshot {
            SettingsSnapshot(
                authorizationStatus: authorization_status, alertSetting: alert_setting,
                lockScreenSetting: lock_screen_setting,
                notificationCenterSetting: notification_center_setting, notificationsEnabled: notifications_enabled,
                channels: channels?.map {
                    ChannelState(id: $0.id, importance: $0.importance, groupBlocked: $0.group_blocked)
                }, pushPermissionState: push_permission_state)
        }
    }
    struct Confirmation: Decodable {
        var kind: String
        var displayed: Bool?
        var hours_ago: Double?
    }
    struct Case: Decodable, CustomTestStringConvertible {
        var name: String
        var status: Int?
        var reason: String?
        var channel: String?
        var sent_hours_ago: Double?
        var installation: Bool?
        var snapshot: Snapshot?
        var receipts: [Confirmation]?
        var instrumented: Bool?
        var provider: PushProvider?
        var push_type: String?
        var mutable_content: Bool?
        var message_kind: MessageKind?
        var background_receipts: Bool?
        var outcome: SendOutcome
        var display_state: String
        var reason_class: RejectionClass?
        var token_invalid: Bool?

        var testDescription: String { name }
        var sentHoursAgo: Double { sent_hours_ago ?? 30 }
        var sendProvider: PushProvider { provider ?? snapshot?.platform.pushProvider ?? .fcm }
        var platform: Platform { snapshot?.platform ?? sendProvider.impliedPlatform }
        var confirmability: Confirmability {
            Confirmability(
                provider: sendProvider, pushType: push_type, mutableContent: mutable_content, messageKind: message_kind)
        }
        /// A receipt's hours before as_of: by default an hour after the send.
        func hoursAgo(_ receipt: Confirmation) -> Double { receipt.hours_ago ?? sentHoursAgo - 1 }
    }
    struct ConfirmabilityCase: Decodable, CustomTestStringConvertible {
        var provider: PushProvider
        var push_type: String?
        var mutable_content: Bool?
        var message_kind: MessageKind?
        var can_confirm: Confirmability.CanConfirm
        var is_notification: Bool
        var testDescription: String {
            [
                provider.rawValue, push_type ?? "-", mutable_content.map(String.init) ?? "-",
                message_kind?.rawValue ?? "-",
            ]
            .joined(separator: " ")
        }
    }
    struct RejectionCase: Decodable, CustomTestStringConvertible {
        var provider: PushProvider?
        var status: Int
        var reason: String?
        var `class`: RejectionClass?
        /// APNs and FCM read status and reason alike; the rows name webpush where it differs.
        var sendProvider: PushProvider { provider ?? .apns }
        var testDescription: String { "\(sendProvider.rawValue) \(status) \(reason ?? "-")" }
    }
    var confirmation_window_hours: Double
    var outcomes: [Case]
    var confirmability: [ConfirmabilityCase]
    var rejection_classes: [RejectionCase]

    static let shared: Rulebook = {
        let url = TestDatabase.repositoryRoot.appendingPathComponent("Tests/Fixtures/outcome-rules.json")
        return try! JSONDecoder().decode(Rulebook.self, from: Data(contentsOf: url))
    }()
    static let asOf = Date(timeIntervalSince1970: 1_794_312_000)  // 2026-11-10T12:00:00Z
    static func time(hoursAgo: Double) -> Date { asOf.addingTimeInterval(-hoursAgo * 3_600) }
}

@Suite("The outcome rulebook: Swift rules and the SQL engine pass one truth table")
struct OutcomeRulebookTests {
    static let book = Rulebook.shared

    @Test func theTableCoversEveryOutcomeAndClass() {
        #expect(Set(Self.book.outcomes.map(\.outcome)) == Set(SendOutcome.allCases))
        #expect(Set(Self.book.rejection_classes.compactMap(\.class)) == Set(RejectionClass.allCases))
        #expect(Set(Self.book.outcomes.map(\.display_state)) == ["unknown", "can_display", "cannot_display"])
    }

    @Test(arguments: book.outcomes)
    func swiftRules(_ c: Rulebook.Case) {
        let state = c.snapshot.map { DisplayState(snapshot: $0.settings, platform: $0.platform) }
        let receipts = (c.receipts ?? []).map { r in
            Receipt(
                kind: r.kind == "opened" ? .opened : .received(displayed: r.displayed),
                at: Rulebook.time(hoursAgo: c.hoursAgo(r)))
        }
        let outcome = OutcomeRules.classify(
            status: c.status ?? 200, sentAt: Rulebook.time(hoursAgo: c.sentHoursAgo), channel: c.channel ?? "orders",
            state: c.installation == false ? nil : state, receipts: receipts, instrumented: c.instrumented ?? true,
            asOf: Rulebook.asOf, confirmationWindow: Self.book.confirmation_window_hours * 3_600,
            confirmability: c.confirmability, backgroundInstrumented: c.background_receipts ?? false)
        #expect(outcome == c.outcome)
        #expect((state.map { $0.canDisplay ? "can_display" : "cannot_display" } ?? "unknown") == c.display_state)
        let status = c.status ?? 200
        #expect(RejectionClass.of(provider: c.sendProvider, status: status, reason: c.reason) == c.reason_class)
        #expect(
            RejectionClass.isTokenInvalid(provider: c.sendProvider, status: status, reason: c.reason)
                == (c.token_invalid ?? false))
    }

    @Test(arguments: book.confirmability)
    func swiftConfirmability(_ c: Rulebook.ConfirmabilityCase) {
        let found = Confirmability(
            provider: c.provider, pushType: c.push_type, mutableContent: c.mutable_content, messageKind: c.message_kind)
        #expect(found == Confirmability(canConfirm: c.can_confirm, isNotification: c.is_notification))
    }

    @Test func theConfirmabilityTableCoversEveryAnswer() {
        #expect(Set(Self.book.confirmability.map(\.can_confirm)) == Set(Confirmability.CanConfirm.allCases))
        #expect(Set(Self.book.confirmability.map(\.is_notification)) == [true, false])
        #expect(Self.book.outcomes.contains { $0.background_receipts == true })
    }

    @Test(arguments: book.rejection_classes)
    func swiftRejectionClasses(_ c: Rulebook.RejectionCase) {
        #expect(RejectionClass.of(provider: c.sendProvider, status: c.status, reason: c.reason) == c.class)
        #expect(
            RejectionClass.isTokenInvalid(provider: c.sendProvider, status: c.status, reason: c.reason)
                == (c.class == .tokenInvalid))
    }

    @Test func sqlEngine() throws {
        let connection = try Connection.connect(url: try TestDatabase.fresh(prefix: "rules"))
        let ids = try Self.book.outcomes.enumerated().map { n, c in
            try RulebookRows.insert(c, app: "rule-\(n)", on: connection)
        }
        for (n, c) in Self.book.outcomes.enumerated() {
            let rows = try connection.query(
                """
                select outcome, display_state, reason_class, token_invalid
                  from pushledger_classified_sends(\("rule-\(n)"), \(Rulebook.time(hoursAgo: 72)), \
                \(Rulebook.time(hoursAgo: -1)),
                                                   \(Rulebook.asOf), \
                \("\(Int(Self.book.confirmation_window_hours)) hours")::interval)
                 where notification_id = \(ids[n].notification)
                """)
            #expect(rows.count == 1, "\(c.name)")
            guard let row = rows.first else { continue }
            #expect(try row.decode("outcome", as: String.self) == c.outcome.rawValue, "\(c.name)")
            #expect(try row.decode("display_state", as: String.self) == c.display_state, "\(c.name)")
            #expect(try row.decode("reason_class", as: String?.self) == c.reason_class?.rawValue, "\(c.name)")
            #expect(try row.decode("token_invalid", as: Bool.self) == (c.token_invalid ?? false), "\(c.name)")
        }
        let classes = try connection.query("select * from pushledger_alert_reason_classes()").map {
            try $0.decode(0, as: String.self)
        }
        #expect(
            Set(classes) == Set(RejectionClass.allCases.map(\.rawValue))
                && classes.count == RejectionClass.allCases.count)
        for c in Self.book.rejection_classes {
            let found = try connection.query(
                "select pushledger_reason_class(\(c.sendProvider.rawValue), \(c.status)::integer, \(c.reason)) as c"
            )[0].decode("c", as: String?.self)
            #expect(found == c.class?.rawValue, "\(c.testDescription)")
        }
        for c in Self.book.confirmability {
            let row = try connection.query(
                """
                select pushledger_send_can_confirm(\(c.provider.rawValue), \(c.push_type), \(c.mutable_content), \
                \(c.message_kind?.rawValue)) as can_confirm,
                       pushledger_send_is_notification(\(c.provider.rawValue), \(c.push_type)) as is_notification
                """)[0]
            #expect(try row.decode("can_confirm", as: String.self) == c.can_confirm.rawValue, "\(c.testDescription)")
            #expect(try row.decode("is_notification", as: Bool.self) == c.is_notification, "\(c.testDescription)")
        }
    }

    /// The rollups' paths: the set-based engine with each day its own window (a rebuild), the
    /// per-send look-ups of a refresh, and the re-judgement of a refresh that sees only new
    /// receipts. Each row's send lands on its day's rollups as the rule says.
    @Test func rollupPaths() throws {
        let window = "\(Int(Self.book.confirmation_window_hours)) hours"
        let rebuilt = try Connection.connect(url: try TestDatabase.fresh(prefix: "rules-rebuild"))
        let refreshed = try Connection.connect(url: try TestDatabase.fresh(prefix: "rules-refresh"))
        let rejudged = try Connection.connect(url: try TestDatabase.fresh(prefix: "rules-rejudge"))
        for connection in [refreshed, rejudged] {
            try connection.execute("select pushledger_rebuild_rollups(\(Rulebook.asOf), \(window)::interval)")
        }
        var ids: [RulebookRows.IDs] = []
        for (n, c) in Self.book.outcomes.enumerated() {
            let app = "rule-\(n)"
            let made = try RulebookRows.insert(c, app: app, on: rebuilt)
            ids.append(made)
            _ = try RulebookRows.insert(c, app: app, on: refreshed, ids: made)
            _ = try RulebookRows.insert(c, app: app, on: rejudged, ids: made, parts: .sendsAndState)
        }
        try rebuilt.execute("select pushledger_rebuild_rollups(\(Rulebook.asOf), \(window)::interval)")
        try refreshed.execute("select pushledger_refresh_rollups(\(Rulebook.asOf), \(window)::interval)")
        try rejudged.execute("select pushledger_refresh_rollups(\(Rulebook.asOf), \(window)::interval)")
        for (n, c) in Self.book.outcomes.enumerated() {
            _ = try RulebookRows.insert(c, app: "rule-\(n)", on: rejudged, ids: ids[n], parts: .confirmations)
        }
        try rejudged.execute("select pushledger_refresh_rollups(\(Rulebook.asOf), \(window)::interval)")
        for (path, connection) in [("rebuild", rebuilt), ("refresh", refreshed), ("re-judged", rejudged)] {
            for (n, c) in Self.book.outcomes.enumerated() {
                let rows = try connection.query(
                    """
                    select outcome from send_outcomes
                     where app_id = \("rule-\(n)") and notification_id = \(ids[n].notification)
                    """
                )
                #expect(
                    try rows.map { try $0.decode("outcome", as: String.self) } == [c.outcome.rawValue],
                    "\(path): \(c.name)")
                let counted = try connection.query(
                    """
                    select coalesce(sum(\(unsafeRaw: OutcomeCounter(c.outcome).rawValue)), 0)::bigint as n
                      from send_rollups_daily where app_id = \("rule-\(n)")
                    """
                )[0].decode("n", as: Int.self)
                #expect(counted >= 1, "\(path): \(c.name) not in the rollups' \(c.outcome.rawValue)")
            }
        }
    }
}

/// The fewest rows that give the SQL engine one case: its send, the installation and its
/// snapshot, the send's receipts and, for an instrumented slice, a receipt of another
/// notification (for background receipts, one of another background push).
enum RulebookRows {
    /// The ids one case's rows share, so that another database gets the same case.
    struct IDs {
        var installation = UUID()
        var notification = UUID()
        var instrumentation = UUID()
        var background = UUID()
    }
    /// Which rows: all, or the sends and the installation's state first and the receipts later.
    enum Parts { case all, sendsAndState, confirmations }

    /// Writes the case's rows and queues their rollup work as the writer would (one app a case).
    @discardableResult
    static func insert(
        _ c: Rulebook.Case, app: String, on connection: Connection, ids: IDs = IDs(), parts: Parts = .all
    ) throws -> IDs {
        try insertRows(c, app: app, on: connection, ids: ids, parts: parts)
        let confirmations = "notification_receipts,notification_opens"
        let state = "sends,installations,settings_snapshots,token_registrations"
        let written = parts == .all ? "\(state),\(confirmations)" : parts == .sendsAndState ? state : confirmations
        _ = try connection.query("select pushledger_queue_stored(\(app), string_to_array(\(written), ','))")
        return ids
    }

    private static func insertRows(
        _ c: Rulebook.Case, app: String, on connection: Connection, ids: IDs, parts: Parts
    ) throws {
        let installation = ids.installation
        let notification = ids.notification
        let platform = c.platform.rawValue
        if parts != .confirmations {
            try insertSendsAndState(c, app: app, ids: ids, on: connection)
        }
        guard parts != .sendsAndState else { return }
        var confirmations = (c.receipts ?? []).map { (notification, $0.kind, $0.displayed, c.hoursAgo($0)) }
        if c.instrumented ?? true { confirmations.append((ids.instrumentation, "received", true, c.sentHoursAgo - 1)) }
        if c.background_receipts == true {
            confirmations.append((ids.background, "received", false, c.sentHoursAgo - 1))
        }
        for (id, kind, displayed, hoursAgo) in confirmations {
            let at = Rulebook.time(hoursAgo: hoursAgo)
            if kind == "opened" {
                try connection.execute(
                    """
                    insert into notification_opens (app_id, event_id, installation_id, platform, notification_id, \
                    action,
                                                    at, occurred_at, received_at)
                    values (\(app), \(UUID()), \(installation), \(platform), \(id), 'default', \(at), \(at), \(at))
                    """)
            } else {
                try connection.execute(
                    """
                    insert into notification_receipts (app_id, event_id, installation_id, platform, notification_id, \
                    displayed,
                                                       at, occurred_at, received_at)
                    values (\(app), \(UUID()), \(installation), \(platform), \(id), \(displayed), \(at), \(at), \(at))
                    """)
            }
        }
    }

    private static func insertSendsAndState(
        _ c: Rulebook.Case, app: String, ids: IDs, on connection: Connection
    ) throws {
        let installation = ids.installation
        let platform = c.platform.rawValue
        let sentAt = Rulebook.time(hoursAgo: c.sentHoursAgo)
        let resolved = c.installation ?? true
        if resolved {
            try connection.execute(
                """
                insert into installations (app_id, installation_id, platform, first_seen_at, last_seen_at, \
                last_received_at)
                values (\(app), \(installation), \(platform), \(sentAt), \(sentAt), \(sentAt))
                """)
        }
        if let snapshot = c.snapshot, resolved {
            let event = UUID()
            let at = sentAt.addingTimeInterval(-3_600)
            try connection.execute(
                """
                insert into settings_snapshots (app_id, event_id, installation_id, platform, authorization_status, \
                alert_setting,
                    lock_screen_setting, notification_center_setting, notifications_enabled, channel_count, \
                push_permission_state, at,
                    occurred_at, received_at)
                values (\(app), \(event), \(installation), \(platform), \(snapshot.authorization_status?.rawValue),
                        \(snapshot.alert_setting?.rawValue), \(snapshot.lock_screen_setting?.rawValue),
                        \(snapshot.notification_center_setting?.rawValue), \(snapshot.notifications_enabled),
                        \(snapshot.channels?.count), \(snapshot.push_permission_state?.rawValue), \(at), \(at), \(at))
                """)
            for channel in snapshot.channels ?? [] {
                try connection.execute(
                    """
                    insert into channel_states (app_id, snapshot_event_id, installation_id, channel_id, importance, \
                    group_blocked,
                                                occurred_at, received_at)
                    values (\(app), \(event), \(installation), \(channel.id), \(channel.importance), \
                    \(channel.group_blocked), \(at), \(at))
                    """)
            }
        }
        try connection.execute(
            """
            insert into sends (app_id, event_id, notification_id, provider, token, installation_id, resolved_by, \
            channel,
                               sent_at, status, reason, received_at, push_type, mutable_content, message_kind)
            values (\(app), \(UUID()), \(ids.notification), \(c.sendProvider.rawValue), 'token',
                    \(resolved ? installation : nil), \(resolved ? "explicit" : "unresolved"), \(c.channel ?? "orders"),
                    \(sentAt), \(c.status ?? 200), \(c.reason), \(sentAt), \(c.push_type), \(c.mutable_content),
                    \(c.message_kind?.rawValue))
            """)
        if c.background_receipts == true {
            // Another background push of the slice, whose receipt (inserted with the confirmations)
            // instruments the slice's background receipts.
            try connection.execute(
                """
                insert into sends (app_id, event_id, notification_id, provider, token, installation_id, resolved_by,
                                   channel, sent_at, status, received_at, push_type)
                values (\(app), \(UUID()), \(ids.background), 'apns', 'other', \(resolved ? installation : nil),
                        \(resolved ? "explicit" : "unresolved"), 'sync', \(sentAt), 200, \(sentAt), 'background')
                """)
        }
    }
}
