import Foundation
import Postgres
import PushLedgerContract

/// The rows of one writer batch, each kind as one array of its composite type
/// (sql/migrations/0021_batch_rows.sql) for `pushledger_apply_batch`. `seq` numbers every valid
/// event in unit order, then index order: the order in which duplicate copies compete (the
/// first one is stored). Copies after the first within the batch are settled here: a later
/// send is left out, a later telemetry event goes with `batch_first` false (its installation's
/// last seen still counts it).
struct BatchRows {
    typealias Row = [(any PostgresEncodable)?]

    private(set) var telemetry = RecordArray()
    private(set) var channels = RecordArray()
    private(set) var sends = RecordArray()
    private(set) var failures = RecordArray()
    /// Valid events per unit (accepted + duplicates).
    private(set) var validCounts: [Int] = []
    /// The earliest and latest time a row is partitioned by (occurred_at, sent_at); nil: no event.
    private(set) var timeRange: ClosedRange<Date>?
    private var seq = 0
    /// The (app, event) keys of the batch so far.
    private var keys: Set<EventKey> = []

    private struct EventKey: Hashable {
        var appID: String
        var eventID: UUID
    }

    init(_ units: [IngestUnit]) {
        for (unit, ingest) in units.enumerated() {
            switch ingest {
            case .telemetry(let batch, let receivedAt):
                let events = batch.events.sorted { $0.index < $1.index }
                for event in events { addTelemetry(event, of: batch.envelope, unit: unit, receivedAt: receivedAt) }
                addRejections(
                    batch.rejections, endpoint: .telemetry, appID: batch.envelope.appID,
                    installationID: batch.envelope.installationID,
                    receivedAt: receivedAt)
                validCounts.append(events.count)
            case .sends(let batch, let appID, let receivedAt):
                let results = batch.sends.sorted { $0.index < $1.index }
                for send in results { addSend(send, unit: unit, receivedAt: receivedAt) }
                addRejections(
                    batch.rejections, endpoint: .sends, appID: appID, installationID: nil, receivedAt: receivedAt)
                validCounts.append(results.count)
            case .failedRequest(
                let endpoint, let appID, let code, let message, let rawBody, let receivedAt, let subject):
                addFailure(appID, endpoint, code, message, index: nil, eventID: nil, rawBody, subject, receivedAt)
                validCounts.append(0)
            }
        }
    }

    /// The type-specific fields of `pushledger_batch_telemetry`, in its order (after the fields
    /// every event has: seq, unit, batch_first, app_id … received_at).
    enum PayloadColumn: String, CaseIterable {
        case authorizationStatus = "authorization_status", alertSetting = "alert_setting"
        case soundSetting = "sound_setting", badgeSetting = "badge_setting"
        case lockScreenSetting = "lock_screen_setting", notificationCenterSetting = "notification_center_setting"
        case timeSensitiveSetting = "time_sensitive_setting", scheduledDeliverySetting = "scheduled_delivery_setting"
        case alertStyle = "alert_style", notificationsEnabled = "notifications_enabled"
        case postNotifications = "post_notifications", channelCount = "channel_count"
        case placement, prompt, result, experiment, variant, provider, token, environment
        case notificationID = "notification_id", channel, displayed, action, link, landed
        case standbyBucket = "standby_bucket", backgroundRestricted = "background_restricted"
        case ignoringBatteryOptimizations = "ignoring_battery_optimizations"
        case forceStoppedBeforeStart = "force_stopped_before_start", lowPowerMode = "low_power_mode"
        // Web (contract v1.3): the envelope's browser on every row, the settings and a dismissal's mark.
        case browser, browserVersion = "browser_version", pushPermissionState = "push_permission_state"
        case displayMode = "display_mode", subscription, dismissed

        static let offsets = Dictionary(uniqueKeysWithValues: allCases.enumerated().map { ($1, $0) })
    }
    private mutating func include(_ time: Date) {
        timeRange = timeRange.map { min($0.lowerBound, time)...max($0.upperBound, time) } ?? time...time
    }

    private mutating func nextSeq() -> Int {
        seq += 1
        return seq
    }

    /// Whether no earlier event of the batch had this key.
    private mutating func isFirst(_ appID: String, _ eventID: UUID) -> Bool {
        keys.insert(EventKey(appID: appID, eventID: eventID)).inserted
    }

    private mutating func addTelemetry(
        _ event: TelemetryEvent, of envelope: TelemetryEnvelope, unit: Int, receivedAt: Date
    ) {
        let seq = nextSeq()
        let first = isFirst(envelope.appID, event.eventID)
        include(event.occurredAt)
        let common: Row = [
            seq, unit, first, envelope.appID, event.eventID, envelope.installationID, envelope.platform.rawValue,
            envelope.appVersion, envelope.osVersion, envelope.sdkInt, event.payload.typeName, event.at,
            event.occurredAt, receivedAt,
        ]
        var payload = Row(repeating: nil, count: PayloadColumn.allCases.count)
        func set(_ column: PayloadColumn, _ value: (any PostgresEncodable)?) {
            payload[PayloadColumn.offsets[column]!] = value
        }
        set(.browser, envelope.browser?.rawValue)
        set(.browserVersion, envelope.browserVersion)
        switch event.payload {
        case .notificationSettings(let s):
            set(.authorizationStatus, s.authorizationStatus?.rawValue)
            set(.alertSetting, s.alertSetting?.rawValue)
            set(.soundSetting, s.soundSetting?.rawValue)
            set(.badgeSetting, s.badgeSetting?.rawValue)
            set(.lockScreenSetting, s.lockScreenSetting?.rawValue)
            set(.notificationCenterSetting, s.notificationCenterSetting?.rawValue)
            set(.timeSensitiveSetting, s.timeSensitiveSetting?.rawValue)
            set(.scheduledDeliverySetting, s.scheduledDeliverySetting?.rawValue)
            set(.alertStyle, s.alertStyle?.rawValue)
            set(.notificationsEnabled, s.notificationsEnabled)
            set(.postNotifications, s.postNotifications?.rawValue)
            set(.channelCount, s.channels?.count)
            set(.standbyBucket, s.standbyBucket?.rawValue)
            set(.backgroundRestricted, s.backgroundRestricted)
            set(.ignoringBatteryOptimizations, s.ignoringBatteryOptimizations)
            set(.forceStoppedBeforeStart, s.forceStoppedBeforeStart)
            set(.lowPowerMode, s.lowPowerMode)
            set(.pushPermissionState, s.pushPermissionState?.rawValue)
            set(.displayMode, s.displayMode?.rawValue)
            set(.subscription, s.subscription?.rawValue)
            for channel in s.channels ?? [] where first {
                channels.append([seq, channel.id, channel.importance, channel.group, channel.groupBlocked])
            }
        case .permissionPrompt(let p):
            set(.placement, p.placement)
            set(.prompt, p.prompt.rawValue)
            set(.result, p.result.rawValue)
        case .experimentExposure(let e):
            set(.experiment, e.experiment)
            set(.variant, e.variant)
        case .pushToken(let t):
            set(.provider, t.provider.rawValue)
            set(.token, t.token)
            set(.environment, t.environment?.rawValue)
        case .notificationReceived(let r), .notificationDismissed(let r):
            set(.notificationID, r.notificationID)
            set(.channel, r.channel)
            set(.displayed, r.displayed)
            set(.dismissed, r.dismissed)
        case .notificationOpened(let o):
            set(.notificationID, o.notificationID)
            set(.action, o.action)
            set(.link, o.link)
            set(.landed, o.landed?.rawValue)
        }
        telemetry.append(common + payload)
    }

    private mutating func addSend(_ send: SendResult, unit: Int, receivedAt: Date) {
        guard isFirst(send.appID, send.eventID) else { return }
        include(send.sentAt)
        sends.append([
            nextSeq(), unit, send.appID, send.eventID, send.notificationID, send.provider.rawValue, send.token,
            send.installationID, send.channel, send.campaign, send.sentAt, send.status, send.reason, send.apnsID,
            send.unregisteredAt, send.priority, send.pushType, send.environment, send.latencyMs, receivedAt,
            send.responseBody, send.collapseID, send.expiresAt, send.mutableContent, send.messageKind?.rawValue,
            send.urgency?.rawValue, send.pushService?.rawValue,
        ])
    }

    /// `installationID`: the envelope's, for telemetry (a rejected event names none itself).
    private mutating func addRejections(
        _ rejections: [Rejection], endpoint: IngestEndpoint, appID: String, installationID: UUID?, receivedAt: Date
    ) {
        for r in rejections {
            var subject = r.subject
            if subject.installationID == nil { subject.installationID = installationID }
            addFailure(
                appID, endpoint, r.code.rawValue, r.message, index: r.index, eventID: r.eventID, r.raw, subject,
                receivedAt)
        }
    }

    /// Every text through `storableText`: a message may quote a value from the request.
    private mutating func addFailure(
        _ appID: String, _ endpoint: IngestEndpoint, _ code: String, _ message: String, index: Int?, eventID: String?,
        _ raw: FailedText, _ subject: FailedSubject, _ receivedAt: Date
    ) {
        func storable(_ text: String) -> String { Rejection.storableText(ArraySlice(text.utf8)) }
        failures.append([
            storable(appID), endpoint.rawValue, storable(code), storable(message), index, eventID.map(storable),
            raw.prefix, receivedAt,
            raw.byteCount, raw.sha256, subject.installationID, subject.token.map(storable),
        ])
    }
}
