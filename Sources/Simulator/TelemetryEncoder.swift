import PushLedgerContract

/// Writes an installation's events as `/v1/telemetry` bodies, grouped the way an SDK flushes:
/// one batch per flush period the device was online in (offline stretches flush together) and app version.
struct TelemetryEncoder {
    let plan: InstallationPlan
    let config: SimulationConfig

    private static let osVersions = [29: "10", 30: "11", 31: "12", 32: "12L", 33: "13", 34: "14", 35: "15"]

    /// The OS version the installation's batches carry (on web, as the browser reports it).
    static func osVersion(_ plan: InstallationPlan) -> String {
        if let web = plan.web { return web.osVersion }
        return plan.platform == .android ? osVersions[plan.sdk] ?? "14" : plan.index % 3 == 0 ? "17.6.1" : "18.1"
    }

    func batches(_ events: [SimEvent], random r: inout SimRandom) -> [TelemetryBatch] {
        var result: [TelemetryBatch] = []
        var start = 0
        while start < events.count {
            let key = flushKey(events[start])
            let cap = config.maxEventsPerRequest >= 500 ? 500 : 1 + result.count % max(1, config.maxEventsPerRequest)
            var end = start + 1
            while end < events.count && end - start < cap && flushKey(events[end]) == key { end += 1 }
            let batch = encode(events[start..<end], version: events[start].version)
            result.append(batch, retriedWith: config.duplicateBatchShare, &r)
            start = end
        }
        return result
    }

    private func flushKey(_ e: SimEvent) -> (Int64, Int) {
        (SimTime.floorDiv(SimTime.day(plan.onlineTime(e.at).time), Int64(max(1, config.flushDays))), e.version)
    }

    private func encode(_ events: ArraySlice<SimEvent>, version: Int) -> TelemetryBatch {
        var w = JSONBytes(capacity: 256 + events.count * 320)
        w.raw("{")
        w.key("app_id")
        w.string(config.appID)
        w.field("installation_id", uuid: plan.id)
        w.field("platform", plan.platform.rawValue)
        w.field("app_version", config.appVersions[version])
        w.field("os_version", Self.osVersion(plan))
        if plan.platform == .android { w.field("sdk_int", int: Int64(plan.sdk)) }
        if let web = plan.web {
            w.field("browser", web.browser.rawValue)
            w.field("browser_version", web.browserVersion)
        }
        w.next("sent_at")
        let offset = w.bytes.count + 1
        w.time(config.endMs + plan.skewMs)
        w.next("events")
        w.raw("[")
        for (i, event) in events.enumerated() {
            if i > 0 { w.raw(",") }
            encode(event, into: &w)
        }
        w.raw("]}")
        return TelemetryBatch(
            body: w.bytes, eventCount: events.count, sentAtOffset: offset, skewMs: plan.skewMs, isRetry: false)
    }

    private func encode(_ event: SimEvent, into w: inout JSONBytes) {
        w.raw("{")
        w.key("event_id")
        w.uuid(event.id)
        switch event.payload {
        case .settings(let s):
            w.field("type", "notification_settings")
            settings(s, into: &w)
            deviceState(forceStoppedBeforeStart: event.forceStoppedBeforeStart, into: &w)
        case .prompt(let placement, let kind, let result):
            w.field("type", "permission_prompt")
            w.field("placement", placement)
            w.field("prompt", kind.rawValue)
            w.field("result", result.rawValue)
        case .exposure(let variant):
            w.field("type", "experiment_exposure")
            w.field("experiment", config.experiment)
            w.field("variant", variant)
        case .token(let token):
            w.field("type", "push_token")
            w.field("provider", plan.provider.rawValue)
            w.field("token", token)
            if plan.provider == .apns { w.field("environment", plan.tokenFault == .sandbox ? "sandbox" : "production") }
        case .received(let notification, let channel, let displayed):
            w.field("type", "notification_received")
            w.field("notification_id", uuid: notification)
            if plan.platform != .ios { w.field("channel", config.channels[channel].id) }
            if let displayed { w.field("displayed", bool: displayed) }
        case .dismissed(let notification, let channel):
            w.field("type", "notification_dismissed")
            w.field("notification_id", uuid: notification)
            w.field("channel", config.channels[channel].id)
        case .opened(let notification, let channel, let landed):
            w.field("type", "notification_opened")
            w.field("notification_id", uuid: notification)
            w.field("action", "default")
            w.field("link", "https://shop.example.com/" + config.channels[channel].id)
            w.field("landed", landed.rawValue)
        }
        w.field("at", time: event.at + plan.skewMs)
        w.raw("}")
    }

    /// The v1.2 power and process state every snapshot reports.
    private func deviceState(forceStoppedBeforeStart: Bool?, into w: inout JSONBytes) {
        if let bucket = plan.standbyBucket { w.field("standby_bucket", bucket) }
        if let restricted = plan.backgroundRestricted { w.field("background_restricted", bool: restricted) }
        if let ignoring = plan.ignoringBatteryOptimizations {
            w.field("ignoring_battery_optimizations", bool: ignoring)
        }
        if let stopped = forceStoppedBeforeStart { w.field("force_stopped_before_start", bool: stopped) }
        if let lowPower = plan.lowPowerMode { w.field("low_power_mode", bool: lowPower) }
    }

    private func settings(_ s: DeviceSettings, into w: inout JSONBytes) {
        switch plan.platform {
        case .web:
            w.field("authorization_status", s.authorization.rawValue)
            w.field("push_permission_state", s.webPushPermission.rawValue)
            if let mode = plan.web?.displayMode { w.field("display_mode", mode.rawValue) }
            w.field("subscription", s.subscription.rawValue)
        case .ios:
            w.field("authorization_status", s.authorization.rawValue)
            w.field("alert_setting", s.alert.rawValue)
            w.field("sound_setting", s.alert.rawValue)
            w.field("badge_setting", NotificationSetting.enabled.rawValue)
            w.field("lock_screen_setting", s.lockScreen.rawValue)
            w.field("notification_center_setting", s.notificationCenter.rawValue)
            w.field("alert_style", s.alert == .enabled ? "banner" : "none")
        case .android:
            w.field("notifications_enabled", bool: s.enabled)
            w.field("post_notifications", s.postNotifications.rawValue)
            w.next("channels")
            w.raw("[")
            var first = true
            for (i, importance) in s.importance.enumerated() {
                guard let importance else { continue }
                if !first { w.raw(",") }
                first = false
                w.raw("{")
                w.key("id")
                w.string(config.channels[i].id)
                w.field("importance", int: Int64(importance))
                w.field("group", config.channels[i].group)
                w.field("group_blocked", bool: s.blockedGroup == config.channels[i].group)
                w.raw("}")
            }
            w.raw("]")
        }
    }
}
