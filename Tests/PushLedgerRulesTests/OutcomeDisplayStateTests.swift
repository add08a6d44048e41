import Testing

@testable import PushLedgerContract
@testable import PushLedgerRules

@Suite("Display state and rejection classes")
struct OutcomeDisplayStateTests {
    @Test(arguments: [
        (AuthorizationStatus.authorized, true), (.provisional, true), (.ephemeral, true),
        (.denied, false), (.notDetermined, false),
    ])
    func iosStatusDecidesWhenNoPlaceReported(status: AuthorizationStatus, expected: Bool) {
        let state = DisplayState(snapshot: SettingsSnapshot(authorizationStatus: status), platform: .ios)
        #expect(state.canDisplay == expected)
        #expect(state.isProvisional == (status == .provisional))
    }

    @Test func iosNeedsOneVisiblePlaceWhenReported() {
        var snapshot = SettingsSnapshot(
            authorizationStatus: .authorized, alertSetting: .disabled, soundSetting: .enabled,
            lockScreenSetting: .disabled, notificationCenterSetting: .disabled)
        #expect(!DisplayState(snapshot: snapshot, platform: .ios).canDisplay)
        snapshot.notificationCenterSetting = .enabled
        #expect(DisplayState(snapshot: snapshot, platform: .ios).canDisplay)
        let onlyAlertReported = SettingsSnapshot(authorizationStatus: .authorized, alertSetting: .notSupported)
        #expect(!DisplayState(snapshot: onlyAlertReported, platform: .ios).canDisplay)
    }

    @Test func androidAppAndChannelLevels() {
        let channels = [
            ChannelState(id: "orders", importance: 3), ChannelState(id: "promotions", importance: 0),
            ChannelState(id: "chat", importance: 4, group: "social", groupBlocked: true),
        ]
        let state = DisplayState(
            snapshot: SettingsSnapshot(notificationsEnabled: true, postNotifications: .granted, channels: channels),
            platform: .android)
        #expect(state.canDisplay)
        #expect(!state.isBlocked(channel: "orders"))
        #expect(state.isBlocked(channel: "promotions"))
        #expect(state.isBlocked(channel: "chat"))
        #expect(!state.isBlocked(channel: "never_created"))
        let disabled = DisplayState(snapshot: SettingsSnapshot(notificationsEnabled: false), platform: .android)
        #expect(!disabled.canDisplay)
        #expect(!DisplayState(snapshot: SettingsSnapshot(), platform: .android).canDisplay)
    }

    @Test(
        arguments: [
            (PushProvider.apns, 410, "Unregistered", RejectionClass.tokenInvalid),
            (.apns, 410, "ExpiredToken", .tokenInvalid),
            (.apns, 400, "BadDeviceToken", .tokenInvalid),
            (.apns, 400, "DeviceTokenNotForTopic", .payload),
            (.apns, 413, "PayloadTooLarge", .payload),
            (.apns, 429, "TooManyRequests", .throttled),
            (.apns, 403, "InvalidProviderToken", .auth),
            (.apns, 500, "InternalServerError", .providerError),
            (.apns, 503, "ServiceUnavailable", .providerError),
            (.apns, 0, nil, .providerError),
            (.apns, 404, "BadPath", .other),
            (.fcm, 404, "UNREGISTERED", .tokenInvalid),
            (.fcm, 400, "UNREGISTERED", .tokenInvalid),
            (.fcm, 429, "QUOTA_EXCEEDED", .throttled),
            (.fcm, 400, "INVALID_ARGUMENT", .payload),
            (.fcm, 401, "THIRD_PARTY_AUTH_ERROR", .auth),
            (.fcm, 503, "UNAVAILABLE", .providerError),
            (.apns, 405, "MethodNotAllowed", .other),
            (.webpush, 404, nil, .tokenInvalid),
            (.webpush, 410, nil, .tokenInvalid),
            (.webpush, 413, nil, .payload),
        ] as [(PushProvider, Int, String?, RejectionClass)])
    func rejectionClasses(provider: PushProvider, status: Int, reason: String?, expected: RejectionClass) {
        #expect(RejectionClass.of(provider: provider, status: status, reason: reason) == expected)
    }

    @Test func acceptedIsNoRejection() {
        #expect(RejectionClass.of(provider: .apns, status: 200, reason: nil) == nil)
        #expect(RejectionClass.of(provider: .webpush, status: 201, reason: nil) == nil)
        #expect(!RejectionClass.isTokenInvalid(provider: .fcm, status: 200, reason: "UNREGISTERED"))
    }
}
