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
            result.append(batch)
            if r.chance(config.duplicateBatchShare) {
                var copy = batch
                copy.isRetry = true
                result.append(copy)
            }
            start = end
            index += 1
        }
        return result
    }

    private func encode(_ s: SimSend, into w: inout JSONBytes) {
        w.raw("{")
        w.key("event_id")
        w.uuid(s.eventID)
        w.raw(",")
        w.key("notification_id")
        w.uuid(s.notificationID)
        w.raw(",")
        w.key("app_id")
        w.string(config.appID)
        w.raw(",")
        w.key("provider")
        w.string(s.provider.rawValue)
        w.raw(",")
        w.key("token")
        w.string(s.token)
        if let id = s.installationID {
            w.raw(",")
            w.key("installation_id")
            w.uuid(id)
        }
        w.raw(",")
        w.key("channel")
        w.string(config.channels[s.channel].id)
        w.raw(",")
        w.key("campaign")
        w.string(s.campaign)
        w.raw(",")
        w.key("sent_at")
        w.time(s.sentAt)
        w.raw(",")
        w.key("status")
        w.int(Int64(s.status))
        w.raw(",")
        w.key("reason")
        if let reason = s.reason { w.string(reason) } else { w.raw("null") }
        if s.provider == .apns {
            w.raw(",")
            w.key("apns_id")
            w.uuid(s.notificationID)
        }
        w.raw(",")
        w.key("unregistered_at")
        if let at = s.unregisteredAt { w.time(at) } else { w.raw("null") }
        w.raw(",")
        w.key("priority")
        w.int(Int64(s.priority))
        w.raw(",\"push_type\":\"alert\"")
        if s.provider == .apns { w.raw(",\"environment\":\"production\"") }
        w.raw(",")
        w.key("latency_ms")
        w.int(Int64(s.latencyMs))
        w.raw("}")
    }
}
