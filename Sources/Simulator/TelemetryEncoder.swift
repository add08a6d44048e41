import PushLedgerCore

/// Writes an installation's events as `/v1/telemetry` bodies, grouped the way an SDK flushes:
/// one batch per day the device was online to flush (offline stretches flush together) and app version.
struct TelemetryEncoder {
    let plan: InstallationPlan
    let config: SimulationConfig

    private static let osVersions = [29: "10", 30: "11", 31: "12", 32: "12L", 33: "13", 34: "14", 35: "15"]

    func batches(_ events: [SimEvent], random r: inout SimRandom) -> [TelemetryBatch] {
        var result: [TelemetryBatch] = []
        var start = 0
        while start < events.count {
            let key = flushKey(events[start])
            var end = start + 1
            while end < events.count && end - start < 500 && flushKey(events[end]) == key { end += 1 }
            let batch = encode(events[start..<end], version: events[start].version)
            result.append(batch)
            if r.chance(config.duplicateBatchShare) {
                var copy = batch
                copy.isRetry = true
                result.append(copy)
            }
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
        w.raw(",")
        w.key("installation_id")
        w.uuid(plan.id)
        w.raw(",")
        w.key("platform")
        w.string(plan.platform.rawValue)
        w.raw(",")
        w.key("app_version")
        w.string(config.appVersions[version])
        w.raw(",")
        w.key("os_version")
        if plan.platform == .android {
            w.string(Self.osVersions[plan.sdk] ?? "14")
            w.raw(",")
            w.key("sdk_int")
            w.int(Int64(plan.sdk))
        } else {
            w.string(plan.index % 3 == 0 ? "17.6.1" : "18.1")
        }
        w.raw(",")
        w.key("sent_at")
        let offset = w.bytes.count + 1
        w.time(config.endMs + plan.skewMs)
        w.raw(",")
        w.key("events")
        w.raw("[")
        for (i, event) in events.enumerated() {
            if i > 0 { w.raw(",") }
            encode(event, into: &w)
        }
        w.raw("]}")
        return TelemetryBatch(body: w.bytes, eventCount: events.count, sentAtOffset: offset, skewMs: plan.skewMs, isRetry: false)
    }

    private func encode(_ event: SimEvent, into w: inout JSONBytes) {
        w.raw("{")
        w.key("event_id")
        w.uuid(event.id)
        w.raw(",")
        w.key("type")
        switch event.payload {
        case .settings(let s):
            w.raw("\"notification_settings\"")
            settings(s, into: &w)
        case .prompt(let placement, let kind, let result):
            w.raw("\"permission_prompt\",")
            w.key("placement")
            w.string(placement)
            w.raw(",")
            w.key("prompt")
            w.string(kind.rawValue)
            w.raw(",")
            w.key("result")
            w.string(result.rawValue)
        case .exposure(let variant):
            w.raw("\"experiment_exposure\",")
            w.key("experiment")
            w.string(config.experiment)
            w.raw(",")
            w.key("variant")
            w.string(variant)
        case .token(let token):
            w.raw("\"push_token\",")
            w.key("provider")
            w.string(plan.provider.rawValue)
            w.raw(",")
            w.key("token")
            w.string(token)
            if plan.provider == .apns {
                w.raw(",")
                w.key("environment")
                w.raw(plan.tokenFault == .sandbox ? "\"sandbox\"" : "\"production\"")
            }
        case .received(let notification, let channel, let displayed):
            w.raw("\"notification_received\",")
            w.key("notification_id")
            w.uuid(notification)
            if plan.platform == .android {
                w.raw(",")
                w.key("channel")
                w.string(config.channels[channel].id)
            }
            if let displayed {
                w.raw(",")
                w.key("displayed")
                w.bool(displayed)
            }
        case .opened(let notification, let channel, let landed):
            w.raw("\"notification_opened\",")
            w.key("notification_id")
            w.uuid(notification)
            w.raw(",\"action\":\"default\",")
            w.key("link")
            w.raw("\"https://shop.example.com/")
            w.raw(contentsOf: config.channels[channel].id)
            w.raw("\",")
            w.key("landed")
            w.string(landed.rawValue)
        }
        w.raw(",")
        w.key("at")
        w.time(event.at + plan.skewMs)
        w.raw("}")
    }

    private func settings(_ s: DeviceSettings, into w: inout JSONBytes) {
        switch plan.platform {
        case .ios:
            w.raw(",")
            w.key("authorization_status")
            w.string(s.authorization.rawValue)
            for (name, value) in [("alert_setting", s.alert), ("sound_setting", s.alert), ("badge_setting", .enabled),
                                  ("lock_screen_setting", s.lockScreen), ("notification_center_setting", s.notificationCenter)] {
                w.raw(",")
                w.string(name)
                w.raw(":")
                w.string(value.rawValue)
            }
            w.raw(",")
            w.key("alert_style")
            w.raw(s.alert == .enabled ? "\"banner\"" : "\"none\"")
        case .android:
            w.raw(",")
            w.key("notifications_enabled")
            w.bool(s.enabled)
            w.raw(",")
            w.key("post_notifications")
            w.string(s.postNotifications.rawValue)
            w.raw(",")
            w.key("channels")
            w.raw("[")
            var first = true
            for (i, importance) in s.importance.enumerated() {
                guard let importance else { continue }
                if !first { w.raw(",") }
                first = false
                w.raw("{")
                w.key("id")
                w.string(config.channels[i].id)
                w.raw(",")
                w.key("importance")
                w.int(Int64(importance))
                w.raw(",")
                w.key("group")
                w.string(config.channels[i].group)
                w.raw(",")
                w.key("group_blocked")
                w.bool(s.blockedGroup == config.channels[i].group)
                w.raw("}")
            }
            w.raw("]")
        }
    }
}

extension JSONBytes {
    /// Unquoted text (a slug known to need no escaping).
    mutating func raw(contentsOf text: String) { bytes.append(contentsOf: text.utf8) }
}
