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
    private(set) var telemetry: RecordArray
    private(set) var channels: RecordArray
    private(set) var sends: RecordArray
    private(set) var failures: RecordArray
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

    /// The four composite types of a batch's rows, as the database defines them.
    struct Types: Sendable {
        var telemetry, channel, send, failure: RecordType

        /// Looked up on `connection` (the writer keeps them: they change only with a migration).
        init(_ connection: Connection) throws {
            telemetry = try connection.recordType("pushledger_batch_telemetry")
            channel = try connection.recordType("pushledger_batch_channel")
            send = try connection.recordType("pushledger_batch_send")
            failure = try connection.recordType("pushledger_batch_failure")
        }
    }

    init(_ units: [IngestUnit], types: Types) {
        telemetry = RecordArray(of: types.telemetry)
        channels = RecordArray(of: types.channel)
        sends = RecordArray(of: types.send)
        failures = RecordArray(of: types.failure)
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
    /// every event has: seq, unit, batch_first, app_id … received_at); the raw value is the
    /// field's place among them.
    enum PayloadColumn: Int, CaseIterable {
        case authorizationStatus, alertSetting, soundSetting, badgeSetting, lockScreenSetting
        case notificationCenterSetting, timeSensitiveSetting, scheduledDeliverySetting, alertStyle
        case notificationsEnabled, postNotifications, channelCount
        case placement, prompt, result, experiment, variant, provider, token, environment
        case notificationID, channel, displayed, action, link, landed
        case standbyBucket, backgroundRestricted, ignoringBatteryOptimizations, forceStoppedBeforeStart
        case lowPowerMode
        // Web (contract v1.3): the envelope's browser on every row, the settings and a dismissal's mark.
        case browser, browserVersion, pushPermissionState, displayMode, subscription, dismissed
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
        // An event sets a few of the type-specific fields: those, the rest NULL.
        var payload = [(any PostgresEncodable)?](repeating: nil, count: PayloadColumn.allCases.count)
        func set(_ column: PayloadColumn, _ value: (any PostgresEncodable)?) { payload[column.rawValue] = value }
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
                channels.appendRow { row in
                    row.add(seq)
                    row.add(channel.id)
                    row.add(channel.importance)
                    row.add(channel.group)
                    row.add(channel.groupBlocked)
                }
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
        telemetry.appendRow { row in
            row.add(seq)
            row.add(unit)
            row.add(first)
            row.add(envelope.appID)
            row.add(event.eventID)
            row.add(envelope.installationID)
            row.add(envelope.platform.rawValue)
            row.add(envelope.appVersion)
            row.add(envelope.osVersion)
            row.add(envelope.sdkInt)
            row.add(event.payload.typeName)
            row.add(event.at)
            row.add(event.occurredAt)
            row.add(receivedAt)
            for field in payload { row.add(any: field) }
        }
    }

    private mutating func addSend(_ send: SendResult, unit: Int, receivedAt: Date) {
        guard isFirst(send.appID, send.eventID) else { return }
        include(send.sentAt)
        let seq = nextSeq()
        sends.appendRow { row in
            row.add(seq)
            row.add(unit)
            row.add(send.appID)
            row.add(send.eventID)
            row.add(send.notificationID)
            row.add(send.provider.rawValue)
            row.add(send.token)
            row.add(send.installationID)
            row.add(send.channel)
            row.add(send.campaign)
            row.add(send.sentAt)
            row.add(send.status)
            row.add(send.reason)
            row.add(send.apnsID)
            row.add(send.unregisteredAt)
            row.add(send.priority)
            row.add(send.pushType)
            row.add(send.environment)
            row.add(send.latencyMs)
            row.add(receivedAt)
            row.add(send.responseBody)
            row.add(send.collapseID)
            row.add(send.expiresAt)
            row.add(send.mutableContent)
            row.add(send.messageKind?.rawValue)
            row.add(send.urgency?.rawValue)
            row.add(send.pushService?.rawValue)
        }
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
