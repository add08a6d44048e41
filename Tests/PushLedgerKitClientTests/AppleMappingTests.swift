import Foundation
import PushLedgerKit
import TestSupport
import Testing

/// The mapping the Apple adapter relies on, on plain values.
@Suite("PushLedgerKit Apple mapping")
struct AppleMappingTests {
    @Test func settingsRawValuesMapToTheContract() {
        let settings = AppleNotificationSettings(
            authorizationStatus: 3, alertSetting: 2, soundSetting: 1, badgeSetting: 0, lockScreenSetting: 2,
            notificationCenterSetting: 2, timeSensitiveSetting: 1, scheduledDeliverySetting: 2, alertStyle: 1)
        #expect(
            settings.snapshot
                == SettingsSnapshot(
                    authorizationStatus: .provisional, alertSetting: .enabled, soundSetting: .disabled,
                    badgeSetting: .notSupported,
                    lockScreenSetting: .enabled, notificationCenterSetting: .enabled, timeSensitiveSetting: .disabled,
                    scheduledDeliverySetting: .enabled, alertStyle: .banner))
        #expect(
            (0...4).map(AppleNotificationSettings.status) == [
                .notDetermined, .denied, .authorized, .provisional, .ephemeral,
            ])
        #expect(AppleNotificationSettings.status(9) == nil)
        #expect([0, 1, 2, nil].map(AppleNotificationSettings.style) == [AlertStyle.none, .banner, .alert, nil])
        // Before iOS 15 the two settings are absent, not guessed.
        let old = AppleNotificationSettings(authorizationStatus: 1).snapshot
        #expect(
            old.authorizationStatus == .denied && old.timeSensitiveSetting == nil && old.scheduledDeliverySetting == nil
        )
    }

    @Test(arguments: [
        (AuthorizationStatus.notDetermined, AuthorizationStatus.authorized, true, false, PromptResult.granted),
        (.notDetermined, .denied, false, false, .denied),
        (.notDetermined, .provisional, true, true, .provisional),
        (.provisional, .authorized, true, false, .granted),
        (.provisional, .provisional, true, true, .alreadyDetermined),
        (.denied, .denied, false, false, .alreadyDetermined),
        (.authorized, .authorized, true, false, .alreadyDetermined),
        (.ephemeral, .ephemeral, true, false, .alreadyDetermined),
    ])
    func aSystemPromptRecordsHowItEnded(
        before: AuthorizationStatus, after: AuthorizationStatus, granted: Bool, provisional: Bool,
        expected: PromptResult
    ) {
        #expect(
            SystemPromptOutcome.result(
                before: before, after: after, granted: granted, requestedProvisional: provisional) == expected)
    }

    @Test func payloadsGiveReceiptsAndOpens() {
        let id = UUID()
        let payload = NotificationPayload(userInfo: [
            "aps": ["alert": "Out for delivery", "mutable-content": 1], "notification_id": id.uuidString.lowercased(),
            "channel": "orders", "link": "https://shop.example.com/orders/42",
        ])
        #expect(payload.receipt() == .notificationReceived(notificationID: id, channel: "orders", displayed: nil))
        #expect(
            payload.open(action: "default", landed: .fallback)
                == .notificationOpened(
                    notificationID: id, action: "default", link: "https://shop.example.com/orders/42", landed: .fallback
                ))
        #expect(payload.open(action: nil, landed: nil) == nil, "a dismissal is no tap")
        #expect(NotificationPayload(userInfo: ["aps": [:]]).receipt() == nil, "not a PushLedger notification")
        #expect(NotificationPayload(userInfo: ["notification_id": "not-a-uuid"]).notificationID == nil)
        var keys = NotificationPayload.Keys()
        keys.notificationID = "nid"
        #expect(NotificationPayload(userInfo: ["nid": id.uuidString], keys: keys).notificationID == id)
    }

    @Test func anAPNsTokenIsRecordedInHex() throws {
        let ledger = try PushLedger(configuration: KitFixtures.configuration())
        let token = Data((0..<32).map { UInt8($0 * 7 % 256) })
        #expect(PushLedger.hex(token) == token.map { String(format: "%02x", $0) }.joined())
        #expect(PushLedger.hex(Data([0x0f, 0xa0])) == "0fa0")
        try ledger.recordAPNsToken(token, environment: .sandbox)
        #expect(ledger.pendingCount == 1)
        #expect(throws: PushLedgerError.self) { try ledger.recordAPNsToken(Data([1, 2, 3])) }
    }

    @Test func aBackgroundPushIsJournalledAsAReceiptThatShowedNothing() throws {
        let ledger = try PushLedger(configuration: KitFixtures.configuration())
        let id = UUID()
        let userInfo: [AnyHashable: Any] = ["aps": ["content-available": 1], "notification_id": id.uuidString]
        #expect(
            NotificationPayload(userInfo: userInfo).receipt(displayed: false)
                == .notificationReceived(notificationID: id, channel: nil, displayed: false))
        #expect(ledger.recordBackgroundReceipt(userInfo: userInfo) != nil)
        #expect(ledger.pendingCount == 1)
        // Not a PushLedger push: nothing journalled.
        #expect(ledger.recordBackgroundReceipt(userInfo: ["aps": ["content-available": 1]]) == nil)
        #expect(ledger.pendingCount == 1)
    }
}
