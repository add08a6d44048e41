import Foundation
@_exported import PushLedgerContract

/// One thing the app reports, in the contract's words. The payload types (`SettingsSnapshot`,
/// `PromptKind`, `PromptResult`, `PushProvider`, `APNsEnvironment`, `Landing` …) are the
/// contract's own, so the SDK and the server can never disagree on a name.
public enum PushLedgerEvent: Sendable, Equatable {
    /// What the OS says now (at launch, on every return to the foreground, on a change).
    case notificationSettings(SettingsSnapshot)
    /// The app showed a permission prompt: where (`placement`, a slug), which one, and how it ended.
    case permissionPrompt(placement: String, prompt: PromptKind, result: PromptResult)
    /// The installation was assigned to an experiment arm (both slugs).
    case experimentExposure(experiment: String, variant: String)
    /// The app registered a push token (APNs: the hex form; environment defaults to production).
    case pushToken(provider: PushProvider, token: String, environment: APNsEnvironment? = nil)
    /// The notification reached the device (iOS: the Notification Service Extension ran).
    case notificationReceived(notificationID: UUID, channel: String? = nil, displayed: Bool? = nil)
    /// The user tapped the notification (`action` is `default` for a body tap) and where it landed.
    case notificationOpened(notificationID: UUID, action: String, link: String? = nil, landed: Landing? = nil)

    /// The contract's typed body of this event.
    public var payload: TelemetryPayload {
        switch self {
        case .notificationSettings(let snapshot):
            .notificationSettings(snapshot)
        case .permissionPrompt(let placement, let prompt, let result):
            .permissionPrompt(PermissionPrompt(placement: placement, prompt: prompt, result: result))
        case .experimentExposure(let experiment, let variant):
            .experimentExposure(ExperimentExposure(experiment: experiment, variant: variant))
        case .pushToken(let provider, let token, let environment):
            // The contract's default, written out so the journal holds what the server stores.
            .pushToken(
                PushTokenRegistration(
                    provider: provider, token: token, environment: provider == .apns ? environment ?? .production : nil)
            )
        case .notificationReceived(let id, let channel, let displayed):
            .notificationReceived(NotificationReceipt(notificationID: id, channel: channel, displayed: displayed))
        case .notificationOpened(let id, let action, let link, let landed):
            .notificationOpened(NotificationOpen(notificationID: id, action: action, link: link, landed: landed))
        }
    }

    /// The contract's `type` string.
    public var typeName: String { payload.typeName }
}
