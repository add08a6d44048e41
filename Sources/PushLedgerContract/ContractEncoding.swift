import Foundation
import PushLedgerSupport

// The wire form of the contract types: what an app or sender would send. The simulator and
// the client build requests with these, and tests check that encoding then validating gives
// the same values back. Times are written in UTC with microseconds; absent optionals are
// left out.

extension TelemetryEnvelope {
    /// The `/v1/telemetry` body carrying `events` (already encoded, e.g. by `TelemetryEvent.jsonValue`).
    public func jsonValue(events: [JSONValue]) -> JSONValue {
        var o = JSONObject()
        o.append("app_id", .string(appID))
        o.append("installation_id", .string(installationID.uuidString.lowercased()))
        o.append("platform", .string(platform.rawValue))
        o.appendIfPresent("app_version", appVersion.map(JSONValue.string))
        o.appendIfPresent("os_version", osVersion.map(JSONValue.string))
        o.appendIfPresent("sdk_int", sdkInt.map(JSONValue.int))
        o.appendIfPresent("sent_at", sentAt.map(JSONValue.time))
        o.appendIfPresent("browser", browser.map(\.json))
        o.appendIfPresent("browser_version", browserVersion.map(JSONValue.string))
        o.append("events", .array(events))
        return .object(o)
    }
}

extension TelemetryEvent {
    /// The event as the app sends it (`at` is the device time; `occurredAt` is server-side).
    public var jsonValue: JSONValue {
        var o = JSONObject()
        o.append("event_id", .string(eventID.uuidString.lowercased()))
        o.append("type", .string(payload.typeName))
        o.append("at", .time(at))
        o.members += payload.jsonObject.members
        return .object(o)
    }
}

extension TelemetryPayload {
    /// The type's own fields.
    public var jsonObject: JSONObject {
        var o = JSONObject()
        switch self {
        case .notificationSettings(let s):
            o.appendIfPresent("authorization_status", s.authorizationStatus.map(\.json))
            for (key, setting) in [
                ("alert_setting", s.alertSetting), ("sound_setting", s.soundSetting), ("badge_setting", s.badgeSetting),
                ("lock_screen_setting", s.lockScreenSetting),
                ("notification_center_setting", s.notificationCenterSetting),
                ("time_sensitive_setting", s.timeSensitiveSetting),
                ("scheduled_delivery_setting", s.scheduledDeliverySetting),
            ] {
                o.appendIfPresent(key, setting.map(\.json))
            }
            o.appendIfPresent("alert_style", s.alertStyle.map(\.json))
            o.appendIfPresent("notifications_enabled", s.notificationsEnabled.map(JSONValue.bool))
            o.appendIfPresent("post_notifications", s.postNotifications.map(\.json))
            o.appendIfPresent("channels", s.channels.map { .array($0.map(\.jsonValue)) })
            o.appendIfPresent("standby_bucket", s.standbyBucket.map(\.json))
            o.appendIfPresent("background_restricted", s.backgroundRestricted.map(JSONValue.bool))
            o.appendIfPresent("ignoring_battery_optimizations", s.ignoringBatteryOptimizations.map(JSONValue.bool))
            o.appendIfPresent("force_stopped_before_start", s.forceStoppedBeforeStart.map(JSONValue.bool))
            o.appendIfPresent("low_power_mode", s.lowPowerMode.map(JSONValue.bool))
            o.appendIfPresent("push_permission_state", s.pushPermissionState.map(\.json))
            o.appendIfPresent("display_mode", s.displayMode.map(\.json))
            o.appendIfPresent("subscription", s.subscription.map(\.json))
        case .permissionPrompt(let p):
            o.append("placement", .string(p.placement))
            o.append("prompt", p.prompt.json)
            o.append("result", p.result.json)
        case .experimentExposure(let e):
            o.append("experiment", .string(e.experiment))
            o.append("variant", .string(e.variant))
        case .pushToken(let t):
            o.append("provider", t.provider.json)
            o.append("token", .string(t.token))
            o.appendIfPresent("environment", t.environment.map(\.json))
        case .notificationReceived(let r):
            o.append("notification_id", .uuid(r.notificationID))
            o.appendIfPresent("channel", r.channel.map(JSONValue.string))
            o.appendIfPresent("displayed", r.displayed.map(JSONValue.bool))
        case .notificationDismissed(let r):
            o.append("notification_id", .uuid(r.notificationID))
            o.appendIfPresent("channel", r.channel.map(JSONValue.string))
        case .notificationOpened(let n):
            o.append("notification_id", .uuid(n.notificationID))
            o.append("action", .string(n.action))
            o.appendIfPresent("link", n.link.map(JSONValue.string))
            o.appendIfPresent("landed", n.landed.map(\.json))
        }
        return o
    }
}

extension ChannelState {
    /// `{"id":…,"importance":…}` plus `group` / `group_blocked` when known.
    public var jsonValue: JSONValue {
        var o = JSONObject()
        o.append("id", .string(id))
        o.append("importance", .int(importance))
        o.appendIfPresent("group", group.map(JSONValue.string))
        o.appendIfPresent("group_blocked", groupBlocked.map(JSONValue.bool))
        return .object(o)
    }
}

extension SendResult {
    /// One send as the sender posts it (`index` is positional and not written).
    public var jsonValue: JSONValue {
        var o = JSONObject()
        o.append("event_id", .uuid(eventID))
        o.append("notification_id", .uuid(notificationID))
        o.append("app_id", .string(appID))
        o.append("provider", provider.json)
        o.append("token", .string(token))
        o.appendIfPresent("installation_id", installationID.map(JSONValue.uuid))
        o.append("channel", .string(channel))
        o.appendIfPresent("campaign", campaign.map(JSONValue.string))
        o.append("sent_at", .time(sentAt))
        o.append("status", .int(status))
        o.appendIfPresent("reason", reason.map(JSONValue.string))
        o.appendIfPresent("apns_id", apnsID.map(JSONValue.string))
        o.appendIfPresent("unregistered_at", unregisteredAt.map(JSONValue.time))
        o.appendIfPresent("priority", priority.map(JSONValue.int))
        o.appendIfPresent("push_type", pushType.map(JSONValue.string))
        o.appendIfPresent("environment", environment.map(JSONValue.string))
        o.appendIfPresent("latency_ms", latencyMs.map(JSONValue.int))
        o.appendIfPresent("response_body", responseBody.map(JSONValue.string))
        if provider == .webpush {
            // Web Push's own names: Topic, and a whole-second expiry as its TTL.
            o.appendIfPresent("topic", collapseID.map(JSONValue.string))
            let ttl = expiresAt.map { $0.timeIntervalSince(sentAt) }
            if let ttl, ttl == ttl.rounded() {
                o.append("ttl_seconds", .int(Int(ttl)))
            } else {
                o.appendIfPresent("expires_at", expiresAt.map(JSONValue.time))
            }
            o.appendIfPresent("urgency", urgency.map(\.json))
        } else {
            o.appendIfPresent("collapse_id", collapseID.map(JSONValue.string))
            o.appendIfPresent("expires_at", expiresAt.map(JSONValue.time))
        }
        o.appendIfPresent("mutable_content", mutableContent.map(JSONValue.bool))
        o.appendIfPresent("message_kind", messageKind.map { .string($0.rawValue) })
        return .object(o)
    }
}

extension JSONValue {
    /// A UUID in the contract's lower-case canonical form.
    public static func uuid(_ id: UUID) -> JSONValue { .string(id.uuidString.lowercased()) }
    /// An RFC 3339 UTC time with microseconds.
    public static func time(_ date: Date) -> JSONValue { .string(RFC3339.format(date)) }
}

extension JSONObject {
    /// Appends only when there is a value, so absent optionals stay absent on the wire.
    public mutating func appendIfPresent(_ key: String, _ value: JSONValue?) {
        if let value { append(key, value) }
    }
}

fileprivate extension RawRepresentable where RawValue == String {
    /// A contract enum as its wire string.
    var json: JSONValue { .string(rawValue) }
}
