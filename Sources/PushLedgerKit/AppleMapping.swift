import Foundation

// What the Apple adapter reads from UserNotifications, as plain values, and how it maps to the
// contract. All of it is Foundation only so it is tested on Linux; the adapter
// (Apple/UserNotifications+PushLedger.swift) only copies Apple's objects into these.

/// `UNNotificationSettings` as raw values (`UNAuthorizationStatus`, `UNNotificationSetting`,
/// `UNAlertStyle` raw values); the iOS 15 settings are nil on older systems.
public struct AppleNotificationSettings: Sendable, Equatable {
    public var authorizationStatus: Int
    public var alertSetting: Int?
    public var soundSetting: Int?
    public var badgeSetting: Int?
    public var lockScreenSetting: Int?
    public var notificationCenterSetting: Int?
    public var timeSensitiveSetting: Int?
    public var scheduledDeliverySetting: Int?
    public var alertStyle: Int?

    public init(
        authorizationStatus: Int, alertSetting: Int? = nil, soundSetting: Int? = nil, badgeSetting: Int? = nil,
        lockScreenSetting: Int? = nil, notificationCenterSetting: Int? = nil, timeSensitiveSetting: Int? = nil,
        scheduledDeliverySetting: Int? = nil, alertStyle: Int? = nil
    ) {
        self.authorizationStatus = authorizationStatus
        self.alertSetting = alertSetting
        self.soundSetting = soundSetting
        self.badgeSetting = badgeSetting
        self.lockScreenSetting = lockScreenSetting
        self.notificationCenterSetting = notificationCenterSetting
        self.timeSensitiveSetting = timeSensitiveSetting
        self.scheduledDeliverySetting = scheduledDeliverySetting
        self.alertStyle = alertStyle
    }

    /// `UNAuthorizationStatus`: 0 notDetermined, 1 denied, 2 authorized, 3 provisional, 4 ephemeral.
    /// A value a later SDK adds maps to nil (the snapshot is then refused at record, never guessed).
    public static func status(_ raw: Int) -> AuthorizationStatus? {
        switch raw {
        case 0: .notDetermined
        case 1: .denied
        case 2: .authorized
        case 3: .provisional
        case 4: .ephemeral
        default: nil
        }
    }

    /// `UNNotificationSetting`: 0 notSupported, 1 disabled, 2 enabled.
    public static func setting(_ raw: Int?) -> NotificationSetting? {
        switch raw {
        case 0: .notSupported
        case 1: .disabled
        case 2: .enabled
        default: nil
        }
    }

    /// `UNAlertStyle`: 0 none, 1 banner, 2 alert.
    public static func style(_ raw: Int?) -> AlertStyle? {
        switch raw {
        case 0: AlertStyle.none
        case 1: .banner
        case 2: .alert
        default: nil
        }
    }

    /// The contract's snapshot of these settings.
    public var snapshot: SettingsSnapshot {
        SettingsSnapshot(
            authorizationStatus: Self.status(authorizationStatus), alertSetting: Self.setting(alertSetting),
            soundSetting: Self.setting(soundSetting), badgeSetting: Self.setting(badgeSetting),
            lockScreenSetting: Self.setting(lockScreenSetting),
            notificationCenterSetting: Self.setting(notificationCenterSetting),
            timeSensitiveSetting: Self.setting(timeSensitiveSetting),
            scheduledDeliverySetting: Self.setting(scheduledDeliverySetting),
            alertStyle: Self.style(alertStyle))
    }
}

/// How a `requestAuthorization` call ended, from the status before and after it.
public enum SystemPromptOutcome {
    /// `already_determined` when the OS could not have shown its dialog (the user answered
    /// before); `provisional` for a provisional request from not-determined (iOS shows nothing
    /// and grants quietly) or a quiet grant; else `granted` / `denied` by the answer. A
    /// provisional installation asked for full authorization does see the dialog.
    public static func result(
        before: AuthorizationStatus, after: AuthorizationStatus, granted: Bool, requestedProvisional: Bool
    ) -> PromptResult {
        switch before {
        case .denied, .authorized, .ephemeral: return .alreadyDetermined
        case .provisional where requestedProvisional: return .alreadyDetermined
        case .notDetermined, .provisional: break
        }
        guard granted else { return .denied }
        return after == .provisional ? .provisional : .granted
    }
}

/// The PushLedger fields of a push payload (`userInfo`): the sender's `notification_id` and
/// optional `channel` and `link`, as top-level keys beside `aps`.
public struct NotificationPayload: Sendable, Equatable {
    public var notificationID: UUID?
    public var channel: String?
    public var link: String?

    /// Payload key names; the defaults are the contract's field names.
    public struct Keys: Sendable, Equatable {
        public var notificationID = "notification_id"
        public var channel = "channel"
        public var link = "link"
        public init() {}
    }

    public init(userInfo: [AnyHashable: Any], keys: Keys = Keys()) {
        notificationID = (userInfo[keys.notificationID] as? String).flatMap(ContractFormat.uuid)
        channel = userInfo[keys.channel] as? String
        link = userInfo[keys.link] as? String
    }

    /// The `notification_received` event for this payload; nil when it carries no notification id.
    public func receipt(displayed: Bool? = nil) -> PushLedgerEvent? {
        notificationID.map { .notificationReceived(notificationID: $0, channel: channel, displayed: displayed) }
    }

    /// The `notification_opened` event for a tap with `action` (`default` for a body tap, else
    /// the action button's identifier); nil for a dismissal (action nil) or a payload without a
    /// notification id. `landed`: where the app actually routed the tap.
    public func open(action: String?, landed: Landing?) -> PushLedgerEvent? {
        guard let notificationID, let action else { return nil }
        return .notificationOpened(notificationID: notificationID, action: action, link: link, landed: landed)
    }
}

extension PushLedger {
    /// Records an APNs device token (`application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`)
    /// in its hex form.
    @discardableResult
    public func recordAPNsToken(
        _ deviceToken: Data, environment: APNsEnvironment = .production
    ) throws(PushLedgerError) -> UUID {
        try record(.pushToken(provider: .apns, token: Self.hex(deviceToken), environment: environment))
    }

    /// For a background push (`content-available`, `apns-push-type: background`) from
    /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`: journals a receipt
    /// that showed nothing (`displayed: false`), so the sender's background pushes can confirm.
    /// Nil for a payload without a `notification_id` (or when journalling failed, which is logged).
    @discardableResult
    public func recordBackgroundReceipt(
        userInfo: [AnyHashable: Any], keys: NotificationPayload.Keys = .init()
    ) -> UUID? {
        recordReceipt(of: NotificationPayload(userInfo: userInfo, keys: keys), displayed: false)
    }

    /// Journals `payload`'s receipt; a failure is logged, never thrown: a receipt is recorded
    /// where the OS gives the app a few seconds, and nothing there could act on an error.
    func recordReceipt(of payload: NotificationPayload, displayed: Bool?) -> UUID? {
        guard let event = payload.receipt(displayed: displayed) else { return nil }
        do {
            return try record(event)
        } catch {
            configuration.logger.error("receipt not recorded", ["error": error.description])
            return nil
        }
    }

    /// Lower-case hex of the token's bytes.
    public static func hex(_ token: Data) -> String {
        token.map { String(format: "%02x", $0) }.joined()
    }
}
