import Foundation

// Contract types of docs/contract.md, as they are after validation.
// Raw JSON never travels past validation except as `rawJSON` of a rejection (for the
// failed-event store) — everything downstream works with these checked values.

/// The OS a telemetry batch comes from; `web` is a browser (contract v1.3).
public enum Platform: String, Sendable, Codable, CaseIterable {
    case ios, android, web

    /// The provider an app of this platform registers tokens with.
    public var pushProvider: PushProvider {
        switch self {
        case .ios: .apns
        case .android: .fcm
        case .web: .webpush
        }
    }
}

/// The push service a token or send belongs to.
public enum PushProvider: String, Sendable, Codable, CaseIterable {
    case apns, fcm, webpush

    /// The platform a provider implies when no installation tells (metrics.md, Receipts).
    public var impliedPlatform: Platform {
        switch self {
        case .apns: .ios
        case .fcm: .android
        case .webpush: .web
        }
    }
}

/// The browser of a web envelope (contract v1.3).
public enum Browser: String, Sendable, Codable, CaseIterable {
    case chrome, edge, firefox, safari, samsung, opera, other
}

/// `PushManager.permissionState()` on web (contract v1.3).
public enum PushPermissionState: String, Sendable, Codable, CaseIterable { case granted, denied, prompt }

/// Whether a web page runs as an installed web app (contract v1.3).
public enum DisplayMode: String, Sendable, Codable, CaseIterable { case browser, standalone }

/// The service worker registration's push subscription on web (contract v1.3).
public enum SubscriptionState: String, Sendable, Codable, CaseIterable { case active, none, expired }

/// The Web Push `Urgency` header of a send (contract v1.3).
public enum Urgency: String, Sendable, Codable, CaseIterable {
    case veryLow = "very-low", low, normal, high
}

/// iOS `UNAuthorizationStatus`; on web, `Notification.permission` (contract v1.3).
public enum AuthorizationStatus: String, Sendable, Codable, CaseIterable {
    case notDetermined = "not_determined", denied, authorized, provisional, ephemeral

    /// The states `Notification.permission` has on web (`default` is `not_determined`).
    public var isWeb: Bool { self == .authorized || self == .denied || self == .notDetermined }
}

/// iOS `UNNotificationSetting`.
public enum NotificationSetting: String, Sendable, Codable, CaseIterable {
    case enabled, disabled, notSupported = "not_supported"
}

/// iOS `UNAlertStyle`.
public enum AlertStyle: String, Sendable, Codable, CaseIterable {
    case none, banner, alert
}

/// Android runtime `POST_NOTIFICATIONS` permission state.
public enum PostNotificationsState: String, Sendable, Codable, CaseIterable {
    case granted, denied, notRequired = "not_required"
}

/// Android `UsageStatsManager.getAppStandbyBucket()` (API 28+): constants 10, 20, 30, 40, 45.
public enum StandbyBucket: String, Sendable, Codable, CaseIterable {
    case active, workingSet = "working_set", frequent, rare, restricted
}

/// One Android notification channel as the snapshot reports it.
public struct ChannelState: Sendable, Equatable, Codable {
    public var id: String
    /// `NotificationChannel` importance: -1000 unspecified, 0 none (blocked), 1…5.
    public var importance: Int
    public var group: String?
    public var groupBlocked: Bool?

    public init(id: String, importance: Int, group: String? = nil, groupBlocked: Bool? = nil) {
        self.id = id
        self.importance = importance
        self.group = group
        self.groupBlocked = groupBlocked
    }

    /// Blocked per metrics.md: importance none, or its group blocked.
    public var isBlocked: Bool { importance == 0 || groupBlocked == true }
}

/// `notification_settings`: what the OS says now.
public struct SettingsSnapshot: Sendable, Equatable {
    // iOS
    public var authorizationStatus: AuthorizationStatus?
    public var alertSetting: NotificationSetting?
    public var soundSetting: NotificationSetting?
    public var badgeSetting: NotificationSetting?
    public var lockScreenSetting: NotificationSetting?
    public var notificationCenterSetting: NotificationSetting?
    public var timeSensitiveSetting: NotificationSetting?
    public var scheduledDeliverySetting: NotificationSetting?
    public var alertStyle: AlertStyle?
    // Android
    public var notificationsEnabled: Bool?
    public var postNotifications: PostNotificationsState?
    /// nil when the snapshot carried no `channels` list.
    public var channels: [ChannelState]?
    // Device state (contract v1.2): describes the device, never changes whether the app can display.
    public var standbyBucket: StandbyBucket?
    public var backgroundRestricted: Bool?
    public var ignoringBatteryOptimizations: Bool?
    /// On the first snapshot after a process start: the app was force-stopped before this start
    /// (API 35+). Ignored on iOS.
    public var forceStoppedBeforeStart: Bool?
    /// iOS `ProcessInfo.isLowPowerModeEnabled`.
    public var lowPowerMode: Bool?
    // Web (contract v1.3); `authorizationStatus` carries `Notification.permission`.
    public var pushPermissionState: PushPermissionState?
    public var displayMode: DisplayMode?
    public var subscription: SubscriptionState?

    public init(
        authorizationStatus: AuthorizationStatus? = nil, alertSetting: NotificationSetting? = nil,
        soundSetting: NotificationSetting? = nil, badgeSetting: NotificationSetting? = nil,
        lockScreenSetting: NotificationSetting? = nil, notificationCenterSetting: NotificationSetting? = nil,
        timeSensitiveSetting: NotificationSetting? = nil, scheduledDeliverySetting: NotificationSetting? = nil,
        alertStyle: AlertStyle? = nil, notificationsEnabled: Bool? = nil,
        postNotifications: PostNotificationsState? = nil, channels: [ChannelState]? = nil,
        standbyBucket: StandbyBucket? = nil, backgroundRestricted: Bool? = nil,
        ignoringBatteryOptimizations: Bool? = nil, forceStoppedBeforeStart: Bool? = nil, lowPowerMode: Bool? = nil,
        pushPermissionState: PushPermissionState? = nil, displayMode: DisplayMode? = nil,
        subscription: SubscriptionState? = nil
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
        self.notificationsEnabled = notificationsEnabled
        self.postNotifications = postNotifications
        self.channels = channels
        self.standbyBucket = standbyBucket
        self.backgroundRestricted = backgroundRestricted
        self.ignoringBatteryOptimizations = ignoringBatteryOptimizations
        self.forceStoppedBeforeStart = forceStoppedBeforeStart
        self.lowPowerMode = lowPowerMode
        self.pushPermissionState = pushPermissionState
        self.displayMode = displayMode
        self.subscription = subscription
    }
}

public enum PromptKind: String, Sendable, Codable, CaseIterable { case system, primer }

public enum PromptResult: String, Sendable, Codable, CaseIterable {
    case granted, provisional, denied, dismissed
    case alreadyDetermined = "already_determined"
}

/// `permission_prompt`: the app showed a permission prompt.
public struct PermissionPrompt: Sendable, Equatable {
    public var placement: String
    public var prompt: PromptKind
    public var result: PromptResult
    public init(placement: String, prompt: PromptKind, result: PromptResult) {
        self.placement = placement
        self.prompt = prompt
        self.result = result
    }
    /// metrics.md: a system prompt is shown unless the OS showed nothing.
    public var isShownSystemPrompt: Bool { prompt == .system && result != .alreadyDetermined }
}

/// `experiment_exposure`: the installation was assigned to an experiment arm.
public struct ExperimentExposure: Sendable, Equatable {
    public var experiment: String
    public var variant: String
    public init(experiment: String, variant: String) {
        self.experiment = experiment
        self.variant = variant
    }
}

public enum APNsEnvironment: String, Sendable, Codable, CaseIterable { case production, sandbox }

/// `push_token`: the app registered a push token.
public struct PushTokenRegistration: Sendable, Equatable {
    public var provider: PushProvider
    public var token: String
    /// Always set for APNs (default production); nil for FCM.
    public var environment: APNsEnvironment?
    public init(provider: PushProvider, token: String, environment: APNsEnvironment?) {
        self.provider = provider
        self.token = token
        self.environment = environment
    }
}

/// `notification_received`: the notification reached the app on the device.
public struct NotificationReceipt: Sendable, Equatable {
    public var notificationID: UUID
    public var channel: String?
    public var displayed: Bool?
    /// A `notification_dismissed` event (contract v1.3): the user closed the displayed
    /// notification, which proves its display like a receipt with `displayed: true`.
    public var dismissed: Bool
    public init(notificationID: UUID, channel: String? = nil, displayed: Bool? = nil, dismissed: Bool = false) {
        self.notificationID = notificationID
        self.channel = channel
        self.displayed = displayed
        self.dismissed = dismissed
    }
}

public enum Landing: String, Sendable, Codable, CaseIterable { case target, fallback, rejected }

/// `notification_opened`: tap-through.
public struct NotificationOpen: Sendable, Equatable {
    public var notificationID: UUID
    public var action: String
    public var link: String?
    public var landed: Landing?
    public init(notificationID: UUID, action: String, link: String? = nil, landed: Landing? = nil) {
        self.notificationID = notificationID
        self.action = action
        self.link = link
        self.landed = landed
    }
}

/// The typed body of one telemetry event.
public enum TelemetryPayload: Sendable, Equatable {
    case notificationSettings(SettingsSnapshot)
    case permissionPrompt(PermissionPrompt)
    case experimentExposure(ExperimentExposure)
    case pushToken(PushTokenRegistration)
    case notificationReceived(NotificationReceipt)
    case notificationOpened(NotificationOpen)
    /// `notification_dismissed` (contract v1.3), stored as a receipt that proves display.
    case notificationDismissed(NotificationReceipt)

    /// The contract's `type` string.
    public var typeName: String {
        switch self {
        case .notificationSettings: "notification_settings"
        case .permissionPrompt: "permission_prompt"
        case .experimentExposure: "experiment_exposure"
        case .pushToken: "push_token"
        case .notificationReceived: "notification_received"
        case .notificationOpened: "notification_opened"
        case .notificationDismissed: "notification_dismissed"
        }
    }
}

/// One valid telemetry event.
public struct TelemetryEvent: Sendable, Equatable {
    /// Position in the request's `events` array.
    public var index: Int
    public var eventID: UUID
    /// Device clock, as sent.
    public var at: Date
    /// Skew-corrected: `received_at - (sent_at - at)`, or `at` without `sent_at`.
    public var occurredAt: Date
    public var payload: TelemetryPayload
    public init(index: Int, eventID: UUID, at: Date, occurredAt: Date, payload: TelemetryPayload) {
        self.index = index
        self.eventID = eventID
        self.at = at
        self.occurredAt = occurredAt
        self.payload = payload
    }
}

/// The envelope of a `/v1/telemetry` request.
public struct TelemetryEnvelope: Sendable, Equatable {
    public var appID: String
    public var installationID: UUID
    public var platform: Platform
    public var appVersion: String?
    public var osVersion: String?
    public var sdkInt: Int?
    public var sentAt: Date?
    /// Web only (contract v1.3): required there, nil on the other platforms.
    public var browser: Browser?
    public var browserVersion: String?
    public init(
        appID: String, installationID: UUID, platform: Platform, appVersion: String? = nil,
        osVersion: String? = nil, sdkInt: Int? = nil, sentAt: Date? = nil, browser: Browser? = nil,
        browserVersion: String? = nil
    ) {
        self.appID = appID
        self.installationID = installationID
        self.platform = platform
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.sdkInt = sdkInt
        self.sentAt = sentAt
        self.browser = browser
        self.browserVersion = browserVersion
    }
}

/// One valid row of `/v1/sends`: the sender's result of one APNs/FCM request.
public struct SendResult: Sendable, Equatable {
    /// Position in the request (array index or NDJSON line number, 0-based).
    public var index: Int
    public var eventID: UUID
    public var notificationID: UUID
    public var appID: String
    public var provider: PushProvider
    public var token: String
    public var installationID: UUID?
    public var channel: String
    public var campaign: String?
    public var sentAt: Date
    /// Provider HTTP status; 0 when no response came.
    public var status: Int
    public var reason: String?
    public var apnsID: String?
    public var unregisteredAt: Date?
    public var priority: Int?
    public var pushType: String?
    public var environment: String?
    public var latencyMs: Int?
    /// The provider's HTTP body as the sender passed it (`response_body`), stored as given.
    public var responseBody: String?
    /// APNs `apns-collapse-id` or FCM `collapse_key` (contract v1.2): 1…64 printable ASCII bytes.
    public var collapseID: String?
    /// When the provider discards the notification if undelivered (contract v1.2); never before `sentAt`.
    public var expiresAt: Date?
    /// APNs: the payload's `aps.mutable-content` was 1, so a service extension runs on arrival
    /// (contract v1.3); nil for other providers and when the sender did not say.
    public var mutableContent: Bool?
    /// FCM: what the message carried (contract v1.3); nil for other providers and when not said.
    public var messageKind: MessageKind?
    /// Web Push: the `Urgency` header (contract v1.3); nil for other providers and when not said.
    public var urgency: Urgency?
    /// Web Push: the push service, derived from the endpoint's host; nil for other providers.
    public var pushService: PushService? { provider == .webpush ? PushService(endpoint: token) : nil }

    public init(
        index: Int, eventID: UUID, notificationID: UUID, appID: String, provider: PushProvider, token: String,
        installationID: UUID? = nil, channel: String, campaign: String? = nil, sentAt: Date, status: Int,
        reason: String? = nil, apnsID: String? = nil, unregisteredAt: Date? = nil, priority: Int? = nil,
        pushType: String? = nil, environment: String? = nil, latencyMs: Int? = nil,
        responseBody: String? = nil, collapseID: String? = nil, expiresAt: Date? = nil, mutableContent: Bool? = nil,
        messageKind: MessageKind? = nil, urgency: Urgency? = nil
    ) {
        self.index = index
        self.eventID = eventID
        self.notificationID = notificationID
        self.appID = appID
        self.provider = provider
        self.token = token
        self.installationID = installationID
        self.channel = channel
        self.campaign = campaign
        self.sentAt = sentAt
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.unregisteredAt = unregisteredAt
        self.priority = priority
        self.pushType = pushType
        self.environment = environment
        self.latencyMs = latencyMs
        self.responseBody = responseBody
        self.collapseID = collapseID
        self.expiresAt = expiresAt
        self.mutableContent = mutableContent
        self.messageKind = messageKind
        self.urgency = urgency
    }
}

/// What an FCM message carried (contract v1.3 `message_kind`): a `notification` block alone,
/// `data` alone, or both. With a `notification` block the system tray shows the message while
/// the app is in the background and no app code runs, so no receipt can come.
public enum MessageKind: String, Sendable, Codable, CaseIterable {
    case notification, data, hybrid
}

/// Per-event error codes of the contract.
public enum RejectionCode: String, Sendable, Codable, CaseIterable {
    case missingField = "missing_field", invalidField = "invalid_field", unknownType = "unknown_type"
    case tooLarge = "too_large", tooOld = "too_old", inFuture = "in_future", appMismatch = "app_mismatch"
}

/// One event of a request that failed validation; goes back in `rejected` and to the
/// failed-event store.
public struct Rejection: Sendable, Equatable {
    public var index: Int
    /// The event's `event_id` text when it had one (even if malformed), else nil.
    public var eventID: String?
    public var code: RejectionCode
    public var message: String
    /// The event's JSON text as sent (after decompression), bounded, for the failed-event store.
    public var raw: FailedText
    /// The installation and token the event named, for erasure.
    public var subject: FailedSubject
    /// The stored prefix of the event's text.
    public var rawJSON: String { raw.prefix }
    public init(
        index: Int, eventID: String?, code: RejectionCode, message: String, raw: FailedText,
        subject: FailedSubject = FailedSubject()
    ) {
        self.index = index
        self.eventID = eventID
        self.code = code
        self.message = message
        self.raw = raw
        self.subject = subject
    }
    public init(index: Int, eventID: String?, code: RejectionCode, message: String, rawJSON: String) {
        self.init(index: index, eventID: eventID, code: code, message: message, raw: FailedText(rawJSON))
    }
}
