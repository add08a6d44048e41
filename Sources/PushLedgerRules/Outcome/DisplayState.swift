import Foundation
import PushLedgerContract

/// What an installation's as-of snapshot says about display (metrics.md, "Display state").
///
/// Built from one `notification_settings` snapshot and the installation's platform; an
/// installation without a snapshot at or before the time asked has no `DisplayState`
/// (callers use `nil` for the `unknown` state).
public struct DisplayState: Sendable, Equatable {
    /// App level: the OS would show this app's notifications somewhere.
    public var canDisplay: Bool
    /// iOS `provisional`: displays quietly in Notification Center; reports show it as its own row.
    public var isProvisional: Bool
    /// Android channels known to be blocked (importance none, or group blocked). Empty on iOS and web.
    public var blockedChannels: Set<String>

    public init(canDisplay: Bool, isProvisional: Bool = false, blockedChannels: Set<String> = []) {
        self.canDisplay = canDisplay
        self.isProvisional = isProvisional
        self.blockedChannels = blockedChannels
    }

    public init(snapshot: SettingsSnapshot, platform: Platform) {
        switch platform {
        case .ios:
            let status = snapshot.authorizationStatus
            let authorized = status == .authorized || status == .provisional || status == .ephemeral
            // A snapshot that reports none of the three visible places leaves the status to decide.
            let places = [snapshot.alertSetting, snapshot.lockScreenSetting, snapshot.notificationCenterSetting]
            let reported = places.compactMap { $0 }
            let somewhereVisible = reported.isEmpty || reported.contains(.enabled)
            self.init(canDisplay: authorized && somewhereVisible, isProvisional: status == .provisional)
        case .android:
            let blocked = (snapshot.channels ?? []).filter(\.isBlocked).map(\.id)
            self.init(canDisplay: snapshot.notificationsEnabled == true, blockedChannels: Set(blocked))
        case .web:
            // A browser shows nothing before the user grants (`default` is not_determined).
            let granted = snapshot.authorizationStatus == .authorized && snapshot.pushPermissionState != .denied
            self.init(canDisplay: granted)
        }
    }

    /// Channel level (Android): a channel absent from the snapshot is not known to be blocked.
    public func isBlocked(channel: String) -> Bool { blockedChannels.contains(channel) }
}
