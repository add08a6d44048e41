import PushLedgerSupport

// The typed bodies of telemetry events, one reader per contract type. Each reads every field
// it knows (so the reader sees every missing field before judging invalid ones) and returns a
// payload only when the whole event is valid; unknown extra fields are ignored.

/// Android `NotificationChannel` importance constants accepted in `channels`.
let channelImportances: Set<Int64> = [-1000, 0, 1, 2, 3, 4, 5]

enum TelemetryPayloadReader {
    /// The contract's event types; any other `type` is `unknown_type`.
    static let knownTypes: Set<String> = [
        "notification_settings", "permission_prompt", "experiment_exposure", "push_token",
        "notification_received", "notification_opened", "notification_dismissed",
    ]

    /// Reads the payload of a known `type`; nil when the reader recorded a failure.
    static func read(type: String, platform: Platform, _ r: inout FieldReader) -> TelemetryPayload? {
        switch type {
        case "notification_settings": settings(platform: platform, &r).map(TelemetryPayload.notificationSettings)
        case "permission_prompt": prompt(platform: platform, &r).map(TelemetryPayload.permissionPrompt)
        case "experiment_exposure": exposure(&r).map(TelemetryPayload.experimentExposure)
        case "push_token": pushToken(platform: platform, &r).map(TelemetryPayload.pushToken)
        case "notification_received": receipt(&r).map(TelemetryPayload.notificationReceived)
        case "notification_opened": open(&r).map(TelemetryPayload.notificationOpened)
        case "notification_dismissed": dismissal(&r).map(TelemetryPayload.notificationDismissed)
        default: nil
        }
    }

    /// The envelope's platform decides which fields count; the other platform's are ignored.
    static func settings(platform: Platform, _ r: inout FieldReader) -> SettingsSnapshot? {
        var s = SettingsSnapshot()
        switch platform {
        case .ios:
            s.authorizationStatus = r.choice("authorization_status", required: true)
            s.alertSetting = r.choice("alert_setting", required: false)
            s.soundSetting = r.choice("sound_setting", required: false)
            s.badgeSetting = r.choice("badge_setting", required: false)
            s.lockScreenSetting = r.choice("lock_screen_setting", required: false)
            s.notificationCenterSetting = r.choice("notification_center_setting", required: false)
            s.timeSensitiveSetting = r.choice("time_sensitive_setting", required: false)
            s.scheduledDeliverySetting = r.choice("scheduled_delivery_setting", required: false)
            s.alertStyle = r.choice("alert_style", required: false)
            s.lowPowerMode = r.bool("low_power_mode", required: false)
        case .android:
            s.notificationsEnabled = r.bool("notifications_enabled", required: true)
            s.postNotifications = r.choice("post_notifications", required: false)
            s.channels = r.array("channels", required: false).map { channels(from: $0, &r) }
            s.standbyBucket = r.choice("standby_bucket", required: false)
            s.backgroundRestricted = r.bool("background_restricted", required: false)
            s.ignoringBatteryOptimizations = r.bool("ignoring_battery_optimizations", required: false)
            s.forceStoppedBeforeStart = r.bool("force_stopped_before_start", required: false)
        case .web:
            s.authorizationStatus = r.read(
                "authorization_status", required: true, expected: "one of authorized, denied, not_determined"
            ) { $0.stringValue.flatMap(AuthorizationStatus.init(rawValue:)).flatMap { $0.isWeb ? $0 : nil } }
            s.pushPermissionState = r.choice("push_permission_state", required: false)
            s.displayMode = r.choice("display_mode", required: false)
            s.subscription = r.choice("subscription", required: false)
        }
        return r.hasFailure ? nil : s
    }

    /// `channels` entries: objects with `id` and `importance`, optional `group`, `group_blocked`.
    static func channels(from elements: [JSONValue], _ r: inout FieldReader) -> [ChannelState] {
        var result: [ChannelState] = []
        result.reserveCapacity(elements.count)
        // A channel id is the key of its row in the snapshot: a second entry would contradict the first.
        var ids = Set<[UInt8]>()
        for (index, element) in elements.enumerated() {
            guard case .object(let object) = element else {
                r.noteInvalid("channels[\(index)]", "expected an object, got \(element.kindName)")
                continue
            }
            var c = FieldReader(object, path: "channels[\(index)].")
            let id = c.string("id", required: true, maxBytes: FieldLimits.label)
            let importance = c.read("importance", required: true, expected: "one of -1000, 0, 1, 2, 3, 4, 5") { value in
                value.numberValue?.int64Value.flatMap { channelImportances.contains($0) ? Int($0) : nil }
            }
            let group = c.string("group", required: false, maxBytes: FieldLimits.label)
            let groupBlocked = c.bool("group_blocked", required: false)
            if let id, !ids.insert(Array(id.utf8)).inserted {
                c.noteInvalid("id", "the channel id\(EventChecks.quoted(id)) occurs more than once in the snapshot")
            }
            r.merge(c)
            if let id, let importance {
                result.append(ChannelState(id: id, importance: importance, group: group, groupBlocked: groupBlocked))
            }
        }
        return result
    }

    /// `provisional` is an iOS answer: on web it is `invalid_field`.
    static func prompt(platform: Platform, _ r: inout FieldReader) -> PermissionPrompt? {
        let placement = r.slug("placement", required: true)
        let prompt: PromptKind? = r.choice("prompt", required: true)
        let result: PromptResult? =
            platform == .web
            ? r.read("result", required: true, expected: "one of granted, denied, dismissed, already_determined") {
                $0.stringValue.flatMap(PromptResult.init(rawValue:)).flatMap { $0 == .provisional ? nil : $0 }
            } : r.choice("result", required: true)
        guard let placement, let prompt, let result, !r.hasFailure else { return nil }
        return PermissionPrompt(placement: placement, prompt: prompt, result: result)
    }

    static func exposure(_ r: inout FieldReader) -> ExperimentExposure? {
        let experiment = r.slug("experiment", required: true)
        let variant = r.slug("variant", required: true)
        guard let experiment, let variant, !r.hasFailure else { return nil }
        return ExperimentExposure(experiment: experiment, variant: variant)
    }

    /// `environment` is an APNs notion: it defaults to production there and is ignored for FCM
    /// and Web Push. A `webpush` token belongs to a web envelope and the others to an app's.
    static func pushToken(platform: Platform, _ r: inout FieldReader) -> PushTokenRegistration? {
        let expected = platform == .web ? "webpush" : "apns or fcm"
        let provider = r.read("provider", required: true, expected: expected + " on platform " + platform.rawValue) {
            $0.stringValue.flatMap(PushProvider.init(rawValue:)).flatMap {
                ($0 == .webpush) == (platform == .web) ? $0 : nil
            }
        }
        let token = r.token("token", required: true, provider: provider)
        let environment: APNsEnvironment? =
            provider == .apns ? r.choice("environment", required: false) ?? .production : nil
        guard let provider, let token, !r.hasFailure else { return nil }
        return PushTokenRegistration(provider: provider, token: token, environment: environment)
    }

    static func receipt(_ r: inout FieldReader) -> NotificationReceipt? {
        let notificationID = r.uuid("notification_id", required: true)
        let channel = r.string("channel", required: false, maxBytes: FieldLimits.label)
        let displayed = r.bool("displayed", required: false)
        guard let notificationID, !r.hasFailure else { return nil }
        return NotificationReceipt(notificationID: notificationID, channel: channel, displayed: displayed)
    }

    static func dismissal(_ r: inout FieldReader) -> NotificationReceipt? {
        let notificationID = r.uuid("notification_id", required: true)
        let channel = r.string("channel", required: false, maxBytes: FieldLimits.label)
        guard let notificationID, !r.hasFailure else { return nil }
        return NotificationReceipt(notificationID: notificationID, channel: channel, displayed: true, dismissed: true)
    }

    static func open(_ r: inout FieldReader) -> NotificationOpen? {
        let notificationID = r.uuid("notification_id", required: true)
        let action = r.string("action", required: true, maxBytes: FieldLimits.identifier)
        let link = r.string("link", required: false, maxBytes: FieldLimits.link)
        let landed: Landing? = r.choice("landed", required: false)
        guard let notificationID, let action, !r.hasFailure else { return nil }
        return NotificationOpen(notificationID: notificationID, action: action, link: link, landed: landed)
    }
}
