/// Writes the sender's attempts as `/v1/sends` bodies, in time order; batches alternate
/// between a JSON object and NDJSON so both formats of the contract are exercised.
struct SendsEncoder {
    let config: SimulationConfig

    func batches(_ sends: [SimSend], random r: inout SimRandom) -> [SendsBatch] {
        var result: [SendsBatch] = []
        var start = 0
        var index = 0
        while start < sends.count {
            let end = min(sends.count, start + max(1, config.sendsPerBatch))
            let ndjson = index % 2 == 1
            var w = JSONBytes(capacity: (end - start) * 560 + 16)
            if !ndjson { w.raw("{\"sends\":[") }
            for i in start..<end {
                if i > start { w.raw(ndjson ? "\n" : ",") }
                encode(sends[i], into: &w)
            }
            w.raw(ndjson ? "\n" : "]}")
            let batch = SendsBatch(
                body: w.bytes, contentType: ndjson ? "application/x-ndjson" : "application/json",
                eventCount: end - start, isRetry: false)
            result.append(batch, retriedWith: config.duplicateBatchShare, &r)
            start = end
            index += 1
        }
        return result
    }

    private func encode(_ s: SimSend, into w: inout JSONBytes) {
        w.raw("{")
        w.key("event_id")
        w.uuid(s.eventID)
        w.field("notification_id", uuid: s.notificationID)
        w.field("app_id", config.appID)
        w.field("provider", s.provider.rawValue)
        w.field("token", s.token)
        if let id = s.installationID { w.field("installation_id", uuid: id) }
        w.field("channel", config.channels[s.channel].id)
        w.field("campaign", s.campaign)
        w.field("sent_at", time: s.sentAt)
        w.field("status", int: Int64(s.status))
        w.field("reason", nullable: s.reason)
        if s.provider == .webpush {
            webPushHeaders(s, into: &w)
            return
        }
        if s.provider == .apns { w.field("apns_id", uuid: s.notificationID) }
        w.next("unregistered_at")
        if let at = s.unregisteredAt { w.time(at) } else { w.raw("null") }
        w.field("priority", int: Int64(s.priority))
        w.field("push_type", s.kind.pushType)
        if let mutable = s.kind.mutableContent { w.field("mutable_content", bool: mutable) }
        if let kind = s.kind.messageKind { w.field("message_kind", kind.rawValue) }
        if s.provider == .apns { w.field("environment", "production") }
        w.field("latency_ms", int: Int64(s.latencyMs))
        if let collapse = s.collapseID { w.field("collapse_id", collapse) }
        if let expiry = s.expiresAt { w.field("expires_at", time: expiry) }
        w.raw("}")
    }

    /// The rest of a Web Push send: the request's headers `TTL` (counted from `sent_at`), `Topic`
    /// and `Urgency` (contract v1.3); none of the APNs and FCM fields.
    private func webPushHeaders(_ s: SimSend, into w: inout JSONBytes) {
        w.field("latency_ms", int: Int64(s.latencyMs))
        if let expiry = s.expiresAt { w.field("ttl_seconds", int: (expiry - s.sentAt) / 1_000) }
        if let topic = s.collapseID { w.field("topic", topic) }
        if let urgency = s.urgency { w.field("urgency", urgency.rawValue) }
        w.raw("}")
    }
}
