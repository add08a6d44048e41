import Foundation
import Postgres
import PushLedgerContract
import Store
import Testing

@Suite struct EventWriterTests {
    typealias F = Fixture
    let db: StoreDatabase
    init() throws { db = try StoreDatabase() }

    @Test func everyTelemetryTypeRoundTripsWithSkewCorrectedTime() throws {
        let ios = F.envelope(installation: F.installation(1), platform: .ios, appVersion: "3.1")
        let settings = SettingsSnapshot(
            authorizationStatus: .provisional, alertSetting: .disabled, soundSetting: .enabled,
            badgeSetting: .notSupported,
            lockScreenSetting: .enabled, notificationCenterSetting: .enabled, timeSensitiveSetting: .disabled,
            scheduledDeliverySetting: .enabled, alertStyle: .banner)
        let events = [
            F.event(1, at: 1, skew: -0.5, .notificationSettings(settings)),
            F.event(
                2, at: 2,
                .permissionPrompt(PermissionPrompt(placement: "first_screen", prompt: .system, result: .granted))),
            F.event(
                3, at: 3, .experimentExposure(ExperimentExposure(experiment: "push_prompt_timing", variant: "late"))),
            F.event(4, at: 4, F.token("ab12", provider: .apns)),
            F.event(
                5, at: 5,
                .notificationReceived(
                    NotificationReceipt(notificationID: F.notification(1), channel: "orders", displayed: false))),
            F.event(
                6, at: 6,
                .notificationOpened(
                    NotificationOpen(
                        notificationID: F.notification(1), action: "reply",
                        link: "https://shop.example.com/o/1", landed: .fallback))),
        ]
        #expect(try db.write(F.telemetry(ios, events)) == [WriteOutcome(accepted: 6, duplicates: 0)])

        let snap = try db.connection.query("select * from settings_snapshots")[0]
        #expect(try snap.decode("authorization_status", as: String.self) == "provisional")
        #expect(try snap.decode("badge_setting", as: String.self) == "not_supported")
        #expect(try snap.decode("alert_style", as: String.self) == "banner")
        #expect(try snap.decode("scheduled_delivery_setting", as: String.self) == "enabled")
        #expect(try snap.decode("can_display", as: Bool.self))
        #expect(try snap.decode("at", as: Date.self) == F.time(0.5))
        #expect(try snap.decode("occurred_at", as: Date.self) == F.time(1))
        #expect(try snap.decode("received_at", as: Date.self) == F.time(100))
        #expect(try snap.decode("app_version", as: String?.self) == "3.1")
        #expect(try snap.decode("channel_count", as: Int?.self) == nil)

        let prompt = try db.connection.query("select placement, prompt, result, occurred_at from permission_prompts")[0]
        #expect(try prompt.decode("placement", as: String.self) == "first_screen")
        #expect(try prompt.decode("result", as: String.self) == "granted")
        #expect(try db.value("select variant from experiment_exposures", as: String.self) == "late")
        let reg = try db.connection.query(
            "select provider, token, environment, installation_id from token_registrations")[0]
        #expect(try reg.decode("environment", as: String?.self) == "production")
        #expect(try reg.decode("installation_id", as: UUID.self) == F.installation(1))
        let receipt = try db.connection.query("select notification_id, channel, displayed from notification_receipts")[
            0]
        #expect(try receipt.decode("notification_id", as: UUID.self) == F.notification(1))
        #expect(try receipt.decode("displayed", as: Bool?.self) == false)
        let open = try db.connection.query("select action, link, landed from notification_opens")[0]
        #expect(try open.decode("action", as: String.self) == "reply")
        #expect(try open.decode("landed", as: String?.self) == "fallback")
        #expect(try open.decode("link", as: String?.self) == "https://shop.example.com/o/1")

        let inst = try db.connection.query("select * from installations")[0]
        #expect(try inst.decode("platform", as: String.self) == "ios")
        #expect(try inst.decode("first_seen_at", as: Date.self) == F.time(1))
        #expect(try inst.decode("last_seen_at", as: Date.self) == F.time(6))
        #expect(try inst.decode("app_version", as: String?.self) == "3.1")
        let token = try db.connection.query("select installation_id, is_valid, first_registered_at from push_tokens")[0]
        #expect(try token.decode("is_valid", as: Bool.self))
        #expect(try token.decode("first_registered_at", as: Date?.self) == F.time(4))
    }

    @Test func androidChannelsAreStoredPerSnapshotWithTheirBlockedState() throws {
        let channels = [
            ChannelState(id: "orders", importance: 4, group: "shop", groupBlocked: false),
            ChannelState(id: "promo", importance: 0),
            ChannelState(id: "news", importance: 3, group: "media", groupBlocked: true),
        ]
        let unit = F.telemetry(
            F.envelope(installation: F.installation(1)),
            [F.event(1, at: 1, F.androidSettings(enabled: true, channels: channels))])
        _ = try db.write(unit)
        let rows = try db.connection.query(
            """
            select channel_id, blocked, occurred_at, installation_id, snapshot_event_id from channel_states order \
            by channel_id
            """
        )
        #expect(try rows.map { try $0.decode("channel_id", as: String.self) } == ["news", "orders", "promo"])
        #expect(try rows.map { try $0.decode("blocked", as: Bool.self) } == [true, false, true])
        #expect(try rows[0].decode("occurred_at", as: Date.self) == F.time(1))
        #expect(try rows[0].decode("snapshot_event_id", as: UUID.self) == F.event(1))
        #expect(try db.value("select channel_count from settings_snapshots", as: Int.self) == 3)
        #expect(try db.value("select sdk_int from settings_snapshots", as: Int.self) == 34)
    }

    @Test func sendsRoundTripWithEveryField() throws {
        var send = F.send(
            1, notification: 1, at: 2, installation: F.installation(7), provider: .apns, status: 410,
            reason: "Unregistered", unregisteredAt: F.time(1))
        send.apnsID = "abc"
        send.priority = 10
        send.pushType = "alert"
        send.environment = "production"
        send.latencyMs = 41
        send.collapseID = "order-42"
        send.expiresAt = F.time(3)
        #expect(try db.write(F.sends([send])) == [WriteOutcome(accepted: 1, duplicates: 0)])
        let row = try db.connection.query("select * from sends")[0]
        #expect(try row.decode("notification_id", as: UUID.self) == F.notification(1))
        #expect(try row.decode("resolved_by", as: String.self) == "explicit")
        #expect(try row.decode("installation_id", as: UUID?.self) == F.installation(7))
        #expect(try row.decode("sent_at", as: Date.self) == F.time(2))
        #expect(try row.decode("unregistered_at", as: Date?.self) == F.time(1))
        #expect(try row.decode("apns_id", as: String?.self) == "abc")
        #expect(try row.decode("latency_ms", as: Int?.self) == 41)
        #expect(try row.decode("campaign", as: String?.self) == "order_update")
        #expect(try row.decode("collapse_id", as: String?.self) == "order-42")
        #expect(try row.decode("expires_at", as: Date?.self) == F.time(3))
    }

    /// Contract v1.3: whether a send could produce a receipt is stored as the sender said it,
    /// null when not said.
    @Test func sendsKeepWhatTheyCarried() throws {
        var alert = F.send(1, notification: 1, at: 2, provider: .apns)
        alert.pushType = "alert"
        alert.mutableContent = true
        var background = F.send(2, notification: 2, at: 2, provider: .apns)
        background.pushType = "background"
        var data = F.send(3, notification: 3, at: 2, provider: .fcm)
        data.messageKind = .data
        var tray = F.send(4, notification: 4, at: 2, provider: .fcm)
        tray.messageKind = .notification
        #expect(try db.write(F.sends([alert, background, data, tray])) == [WriteOutcome(accepted: 4, duplicates: 0)])
        let rows = try db.connection.query(
            """
            select coalesce(mutable_content::text, '-') || ' ' || coalesce(message_kind, '-') as carried
              from sends order by event_id
            """
        ).map { try $0.decode("carried", as: String.self) }
        #expect(rows == ["true -", "- -", "- data", "- notification"])
    }

    /// Contract v1.2: the device state of a snapshot is stored as given, null when not said.
    @Test func snapshotsKeepTheirDeviceState() throws {
        var android = SettingsSnapshot(notificationsEnabled: true)
        android.standbyBucket = .rare
        android.backgroundRestricted = true
        android.ignoringBatteryOptimizations = false
        android.forceStoppedBeforeStart = true
        var ios = SettingsSnapshot(authorizationStatus: .authorized)
        ios.lowPowerMode = true
        _ = try db.write(
            F.telemetry(
                F.envelope(installation: F.installation(1)), [F.event(1, at: 0, .notificationSettings(android))]),
            F.telemetry(
                F.envelope(installation: F.installation(2), platform: .ios),
                [F.event(2, at: 0, .notificationSettings(ios))]))
        let rows = try db.connection.query(
            """
            select coalesce(standby_bucket, '-') || ' ' || coalesce(background_restricted::text, '-') || ' ' ||
                   coalesce(ignoring_battery_optimizations::text, '-') || ' ' || \
            coalesce(force_stopped_before_start::text, '-') || ' ' ||
                   coalesce(low_power_mode::text, '-') as state
              from settings_snapshots order by platform
            """
        ).map { try $0.decode("state", as: String.self) }
        #expect(rows == ["rare true false true -", "- - - - true"])
    }

    /// The batch travels as arrays of records in one bind: a row bigger than a page, and text
    /// holding every character either level of quoting uses, are stored exactly as sent.
    @Test func aRowBiggerThanAPageAndTextThatNeedsQuotingAreStoredAsSent() throws {
        let env = F.envelope(installation: F.installation(1))
        // Random text does not compress: 20,000 bytes cannot fit in an 8 kB page.
        var generator = SystemRandomNumberGenerator()
        let link =
            "https://shop.example.com/o/\"q\"\\(a,b){c}"
            + String((0..<20_000).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789".randomElement(using: &generator)! })
        let open = F.event(
            2, at: 2,
            .notificationOpened(
                NotificationOpen(
                    notificationID: F.notification(1), action: " \"default\", (x) ", link: link,
                    landed: .target)))
        let neighbour = F.telemetry(F.envelope(installation: F.installation(2)), [F.event(3, at: 2, F.received(3))])
        #expect(
            try db.write(F.telemetry(env, [open]), neighbour)
                == [WriteOutcome(accepted: 1, duplicates: 0), WriteOutcome(accepted: 1, duplicates: 0)])
        #expect(try db.value("select link from notification_opens", as: String.self) == link)
        #expect(try db.value("select action from notification_opens", as: String.self) == " \"default\", (x) ")
        #expect(try db.count("notification_receipts") == 1)
    }

    /// A dry run gets the answer a write would get and stores nothing, failed events included;
    /// the write after it on the same connection stores the batch.
    @Test func aDryRunAnswersAsAWriteWouldAndStoresNothing() throws {
        let env = F.envelope(installation: F.installation(1))
        let connection = try Connection.connect(url: db.url)
        _ = try db.write(F.telemetry(env, [F.event(1, at: 1, F.received(1))]))
        let failed = IngestUnit.failedRequest(
            endpoint: .sends, appID: F.app, code: "invalid_body", message: "not NDJSON", rawBody: "garbage",
            receivedAt: F.time(100))
        let units = [
            F.telemetry(env, [F.event(1, at: 1, F.received(1)), F.event(2, at: 2, F.received(2))]), failed,
            F.sends([F.send(4, notification: 4, at: 1)]),
        ]
        let expected = [
            WriteOutcome(accepted: 1, duplicates: 1), WriteOutcome(accepted: 0, duplicates: 0),
            WriteOutcome(accepted: 1, duplicates: 0),
        ]
        #expect(try EventWriter().write(units, on: connection, dryRun: true) == expected)
        #expect(try db.count("event_ids") == 1)
        #expect(try db.count("failed_events") == 0)
        #expect(try db.count("sends") == 0)
        #expect(try EventWriter().write(units, on: connection) == expected)
        #expect(try db.count("event_ids") == 3)
        #expect(try db.count("failed_events") == 1)
        #expect(try db.count("sends") == 1)
    }

    @Test func duplicatesWithinAndAcrossBatchesAreCountedNeverStoredTwice() throws {
        let env = F.envelope(installation: F.installation(1))
        let first = F.telemetry(
            env,
            [
                F.event(1, at: 1, F.received(1)), F.event(2, at: 2, F.received(2)),
                F.event(1, at: 1, F.received(9)),
            ])
        let again = F.telemetry(env, [F.event(2, at: 2, F.received(2)), F.event(3, at: 3, F.received(3))])
        // A send that reuses a telemetry event_id of the same app is a duplicate too.
        let send = F.sends([
            F.send(3, notification: 3, at: 1, installation: F.installation(1)), F.send(4, notification: 4, at: 1),
        ])
        #expect(
            try db.write(first, again, send) == [
                WriteOutcome(accepted: 2, duplicates: 1), WriteOutcome(accepted: 1, duplicates: 1),
                WriteOutcome(accepted: 1, duplicates: 1),
            ])
        #expect(try db.write(first) == [WriteOutcome(accepted: 0, duplicates: 3)])
        #expect(try db.count("notification_receipts") == 3)
        // The first copy by order won: event 1 kept notification 1, not 9.
        #expect(try db.count("notification_receipts", "notification_id = '\(F.notification(9))'") == 0)
        #expect(try db.count("sends") == 1)
        #expect(try db.count("event_ids") == 4)
    }

    @Test func sameEventIDInAnotherAppIsNotADuplicate() throws {
        let a = F.telemetry(F.envelope(installation: F.installation(1)), [F.event(1, at: 1, F.received(1))])
        let b = F.telemetry(
            F.envelope(installation: F.installation(1), app: "com.other"), [F.event(1, at: 1, F.received(1))])
        #expect(
            try db.write(a, b) == [WriteOutcome(accepted: 1, duplicates: 0), WriteOutcome(accepted: 1, duplicates: 0)])
    }

    @Test func rejectionsAndFailedRequestsGoToTheFailedEventStore() throws {
        let rejection = Rejection(
            index: 1, eventID: "not-a-uuid", code: .invalidField, message: "event_id: expected a UUID",
            rawJSON: "{\"event_id\":\"not-a-uuid\",\"type\":\"x\\ty\"}")
        let telemetry = F.telemetry(
            F.envelope(installation: F.installation(1)), [F.event(1, at: 1, F.received(1))],
            rejections: [rejection])
        let failed = IngestUnit.failedRequest(
            endpoint: .sends, appID: F.app, code: "invalid_body", message: "not NDJSON",
            rawBody: "garbage\nline", receivedAt: F.time(100))
        #expect(
            try db.write(telemetry, failed) == [
                WriteOutcome(accepted: 1, duplicates: 0), WriteOutcome(accepted: 0, duplicates: 0),
            ])
        let rows = try db.connection.query(
            """
            select endpoint, error_code, message, event_index, event_id, raw_json, received_at from failed_events \
            order by id
            """
        )
        #expect(rows.count == 2)
        #expect(try rows[0].decode("endpoint", as: String.self) == "/v1/telemetry")
        #expect(try rows[0].decode("error_code", as: String.self) == "invalid_field")
        #expect(try rows[0].decode("event_index", as: Int?.self) == 1)
        #expect(try rows[0].decode("event_id", as: String?.self) == "not-a-uuid")
        #expect(try rows[0].decode("raw_json", as: String.self) == rejection.rawJSON)
        #expect(try rows[1].decode("endpoint", as: String.self) == "/v1/sends")
        #expect(try rows[1].decode("event_index", as: Int?.self) == nil)
        #expect(try rows[1].decode("raw_json", as: String.self) == "garbage\nline")
    }

    @Test func aFailedWriteStoresNothing() throws {
        let env = F.envelope(installation: F.installation(1))
        // The writer's transaction: a server error (here a refused receipt) rolls back everything.
        try db.connection.execute(
            "alter table notification_receipts add constraint no_receipts check (false) not valid")
        #expect(throws: PostgresError.self) {
            try db.write(F.telemetry(env, [F.event(1, at: 1, F.received(1)), F.event(2, at: 1, F.token("t"))]))
        }
        #expect(try db.count("event_ids") == 0)
        #expect(try db.count("token_registrations") == 0)
        #expect(try db.count("installations") == 0)
        #expect(try EventWriter().write([], on: db.connection).isEmpty)
    }

    @Test func installationsKeepFirstAndLastSeenAndTheLatestVersions() throws {
        let new = F.envelope(installation: F.installation(1), appVersion: "2.0")
        let old = F.envelope(installation: F.installation(1), appVersion: "1.0")
        _ = try db.write(F.telemetry(new, [F.event(1, at: 10, F.received(1))]))
        // A late retry of an older batch widens first_seen but doesn't roll the version back.
        _ = try db.write(F.telemetry(old, [F.event(2, at: 5, F.received(2))], receivedAt: F.time(200)))
        let row = try db.connection.query("select * from installations")[0]
        #expect(try row.decode("first_seen_at", as: Date.self) == F.time(5))
        #expect(try row.decode("last_seen_at", as: Date.self) == F.time(10))
        #expect(try row.decode("last_received_at", as: Date.self) == F.time(200))
        #expect(try row.decode("app_version", as: String?.self) == "2.0")
    }
}
