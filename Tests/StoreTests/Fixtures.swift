import Foundation
import Postgres
import PushLedgerContract
import Store
import TestSupport

/// Hand-built ingest data for the store tests: fixed times, readable ids.
enum Fixture {
    static let app = "com.example.shop"
    /// 2026-11-10T12:00:00Z, a Tuesday; everything is placed relative to it.
    static let noon = Date(timeIntervalSince1970: 1_794_312_000)

    static func time(_ hours: Double) -> Date { noon.addingTimeInterval(hours * 3600) }

    /// A UUID whose last group is `n` (distinct prefixes keep kinds apart).
    static func id(_ kind: UInt8, _ n: Int) -> UUID {
        UUID(uuidString: String(format: "%02x000000-0000-0000-0000-%012x", kind, n))!
    }
    static func installation(_ n: Int) -> UUID { id(0x1a, n) }
    static func event(_ n: Int) -> UUID { id(0xe0, n) }
    static func notification(_ n: Int) -> UUID { id(0x40, n) }

    static func envelope(
        installation: UUID, platform: Platform = .android, appVersion: String? = "5.2.0", app: String = app
    ) -> TelemetryEnvelope {
        TelemetryEnvelope(
            appID: app, installationID: installation, platform: platform, appVersion: appVersion, osVersion: "14",
            sdkInt: platform == .android ? 34 : nil, sentAt: nil)
    }

    static func event(
        _ n: Int, at hours: Double, skew: Double = 0, _ payload: TelemetryPayload, index: Int = 0
    )
        -> TelemetryEvent
    {
        TelemetryEvent(
            index: index, eventID: event(n), at: time(hours + skew), occurredAt: time(hours), payload: payload)
    }

    static func telemetry(
        _ envelope: TelemetryEnvelope, _ events: [TelemetryEvent], rejections: [Rejection] = [],
        receivedAt: Date = time(100)
    ) -> IngestUnit {
        let indexed = events.enumerated().map { i, e in
            var e = e
            e.index = i
            return e
        }
        return .telemetry(
            ValidatedTelemetry(envelope: envelope, events: indexed, rejections: rejections), receivedAt: receivedAt)
    }

    static func send(
        _ n: Int, notification: Int, at hours: Double, token: String = "tok-a", installation: UUID? = nil,
        provider: PushProvider = .fcm, channel: String = "orders", campaign: String? = "order_update",
        status: Int = 200, reason: String? = nil, unregisteredAt: Date? = nil, index: Int = 0
    ) -> SendResult {
        SendResult(
            index: index, eventID: event(n), notificationID: Fixture.notification(notification), appID: app,
            provider: provider, token: token, installationID: installation, channel: channel, campaign: campaign,
            sentAt: time(hours), status: status, reason: reason, unregisteredAt: unregisteredAt)
    }

    static func sends(_ sends: [SendResult], rejections: [Rejection] = [], receivedAt: Date = time(100)) -> IngestUnit {
        let indexed = sends.enumerated().map { i, s in
            var s = s
            s.index = i
            return s
        }
        return .sends(ValidatedSends(sends: indexed, rejections: rejections), appID: app, receivedAt: receivedAt)
    }

    static func androidSettings(enabled: Bool, channels: [ChannelState]? = nil) -> TelemetryPayload {
        .notificationSettings(
            SettingsSnapshot(notificationsEnabled: enabled, postNotifications: .granted, channels: channels))
    }

    static func received(_ notification: Int, displayed: Bool? = nil) -> TelemetryPayload {
        .notificationReceived(
            NotificationReceipt(notificationID: Fixture.notification(notification), displayed: displayed))
    }

    static func opened(_ notification: Int, landed: Landing? = .target) -> TelemetryPayload {
        .notificationOpened(
            NotificationOpen(notificationID: Fixture.notification(notification), action: "default", landed: landed))
    }

    static func token(_ token: String, provider: PushProvider = .fcm) -> TelemetryPayload {
        .pushToken(
            PushTokenRegistration(provider: provider, token: token, environment: provider == .apns ? .production : nil))
    }
}

/// A migrated throwaway database and a connection to it, one per test.
struct StoreDatabase {
    let url: String
    let connection: Connection

    init() throws {
        url = try TestDatabase.fresh(prefix: "store")
        connection = try Connection.connect(url: url)
    }

    func write(_ units: IngestUnit...) throws -> [WriteOutcome] {
        try EventWriter().write(units, on: connection)
    }

    func count(_ table: String, _ condition: String = "true") throws -> Int {
        try connection.query("select count(*) as n from \(identifier: table) where \(unsafeRaw: condition)")[0].decode(
            "n")
    }

    func value<T: PostgresDecodable>(_ sql: SQL, as type: T.Type = T.self) throws -> T {
        try connection.query(sql)[0].decode(0)
    }
}
