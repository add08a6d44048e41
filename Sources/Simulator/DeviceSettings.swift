import PushLedgerContract
import PushLedgerRules

/// The true notification settings of one simulated device (what the OS would report).
struct DeviceSettings: Equatable {
    // iOS
    var authorization = AuthorizationStatus.notDetermined
    var alert = NotificationSetting.enabled
    var lockScreen = NotificationSetting.enabled
    var notificationCenter = NotificationSetting.enabled
    // Android
    var enabled = false
    var postNotifications = PostNotificationsState.notRequired
    /// Importance per configured channel; nil while the app has not created the channel.
    var importance: [Int?] = []
    /// The channel group the user blocked as a whole, if any.
    var blockedGroup: String?
    // Web (the permission is `authorization`)
    /// The service worker registration's push subscription.
    var subscription = SubscriptionState.none

    func snapshot(platform: Platform, channels: [ChannelProfile]) -> SettingsSnapshot {
        switch platform {
        case .ios:
            return SettingsSnapshot(
                authorizationStatus: authorization, alertSetting: alert, soundSetting: alert,
                badgeSetting: .enabled, lockScreenSetting: lockScreen, notificationCenterSetting: notificationCenter,
                alertStyle: alert == .enabled ? .banner : AlertStyle.none)
        case .android:
            var list: [ChannelState] = []
            for (i, value) in importance.enumerated() {
                guard let value else { continue }
                let group = channels[i].group
                list.append(
                    ChannelState(
                        id: channels[i].id, importance: value, group: group, groupBlocked: blockedGroup == group))
            }
            return SettingsSnapshot(notificationsEnabled: enabled, postNotifications: postNotifications, channels: list)
        case .web:
            // The browser's one permission: Notification.permission and the push permission agree.
            return SettingsSnapshot(
                authorizationStatus: authorization, pushPermissionState: webPushPermission, subscription: subscription)
        }
    }

    /// `PushManager.permissionState()` as a browser reports it beside `Notification.permission`.
    var webPushPermission: PushPermissionState {
        switch authorization {
        case .authorized: .granted
        case .denied: .denied
        default: .prompt
        }
    }

    /// True when the device would show a notification on `channel` (index into the channels).
    func shows(channel: Int, platform: Platform, channels: [ChannelProfile]) -> Bool {
        let state = DisplayState(snapshot: snapshot(platform: platform, channels: channels), platform: platform)
        guard state.canDisplay else { return false }
        if platform != .android { return true }
        // Android 8+ drops a notification posted to a channel the app has not created.
        guard channel < importance.count, importance[channel] != nil else { return false }
        return !state.isBlocked(channel: channels[channel].id)
    }

    /// The user (or, for existing Android installs, the OS upgrade) granted notifications.
    mutating func grant(platform: Platform, sdk: Int) {
        switch platform {
        case .ios:
            authorization = .authorized
            (alert, lockScreen, notificationCenter) = (.enabled, .enabled, .enabled)
        case .web:
            authorization = .authorized
        case .android:
            enabled = true
            postNotifications = sdk >= 33 ? .granted : .notRequired
        }
    }

    mutating func deny(platform: Platform, sdk: Int) {
        switch platform {
        case .ios: authorization = .denied
        case .web:
            // blocking the site ends its push subscription
            authorization = .denied
            subscription = .none
        case .android:
            enabled = false
            postNotifications = sdk >= 33 ? .denied : .notRequired
        }
    }

    /// Web: the user reset the site's permission to "ask" (`default`), which ends its subscription.
    mutating func resetPermission() {
        authorization = .notDetermined
        subscription = .none
    }

    mutating func makeProvisional() {
        authorization = .provisional
        (alert, lockScreen, notificationCenter) = (.disabled, .disabled, .enabled)
    }

    /// iOS "authorized" but every visible place switched off: cannot display.
    mutating func hideEverywhere() { (alert, lockScreen, notificationCenter) = (.disabled, .disabled, .disabled) }
}
