import Foundation
import PushLedgerSupport

/// Validates a `POST /v1/sends` body: `{"sends": […]}` or NDJSON (docs/contract.md).
public enum SendsValidator {
    /// Envelope problems throw (400 for a JSON body that is not JSON or lacks a `sends` array;
    /// 413 `too_many_events`). NDJSON has no envelope: each non-blank line is one send, indexed
    /// by its 0-based line number, and a line that is not JSON is rejected alone
    /// (`invalid_field`, "line N is not JSON", N 1-based) while the other lines go on.
    /// Per-send checks, first failure reported: `too_large`, `missing_field`, `invalid_field`,
    /// `app_mismatch`, `too_old` / `in_future` (on `sent_at`).
    /// Free strings: `app_id` 1…255 bytes; `channel`, `campaign` 1…255; `reason`, `apns_id`
    /// 1…255; `push_type`, `environment` 1…64; `response_body` 0…4,096 bytes. `status` is 0 or
    /// 100…599, `priority` 0…10, `latency_ms` 0…86,400,000. `ProviderResponse` derives `reason`
    /// and `unregistered_at` from `response_body` and normalizes Admin SDK codes. v1.2:
    /// `collapse_id` 1…64 printable ASCII bytes, `expires_at` a time not before `sent_at`.
    public static func validate(
        body: [UInt8], format: SendsFormat, keyAppID: String, receivedAt: Date, limits: IngestLimits
    ) throws(EnvelopeError) -> ValidatedSends {
        let context = Context(keyAppID: keyAppID, receivedAt: RFC3339.microseconds(of: receivedAt), limits: limits)
        switch format {
        case .json: return try validateJSON(body: body, context)
        case .ndjson: return try validateNDJSON(body: body, context)
        }
    }

    static func validateJSON(body: [UInt8], _ context: Context) throws(EnvelopeError) -> ValidatedSends {
        let document: JSONDocument
        do { document = try JSONParser.parse(body, options: context.limits.bodyParseOptions) } catch {
            throw .invalidJSON(error)
        }
        guard case .object(let root) = document.value else { throw .bodyNotObject(document.value) }
        var r = FieldReader(root)
        let sends = r.array("sends", required: true)
        if let failure = r.failure { throw .envelope(failure) }
        guard let sends, let ranges = document.elementRanges(ofMember: "sends") else {
            throw .envelope((.missingField, "missing field \"sends\""))  // unreachable: the reader reported it
        }
        guard sends.count <= context.limits.maxEventsPerRequest else {
            throw .tooManyEvents(sends.count, limits: context.limits, noun: "sends")
        }
        var result = ValidatedSends(sends: [], rejections: [])
        result.sends.reserveCapacity(sends.count)
        for (index, value) in sends.enumerated() {
            context.check(index: index, value: value, raw: body[ranges[index]], into: &result)
        }
        return result
    }

    static func validateNDJSON(body: [UInt8], _ context: Context) throws(EnvelopeError) -> ValidatedSends {
        let lines = ndjsonLines(body)
        let count = lines.reduce(0) { $0 + ($1.isBlank ? 0 : 1) }
        guard count <= context.limits.maxEventsPerRequest else {
            throw .tooManyEvents(count, limits: context.limits, noun: "sends")
        }
        var result = ValidatedSends(sends: [], rejections: [])
        result.sends.reserveCapacity(count)
        for (index, line) in lines.enumerated() where !line.isBlank {
            let raw = body[line.range]
            if let failure = EventChecks.sizeFailure(byteCount: raw.count, limits: context.limits) {
                result.rejections.append(EventChecks.rejection(index: index, value: nil, raw: raw, failure))
                continue
            }
            let value: JSONValue
            do {
                value = try raw.withUnsafeBytes { (buffer) throws(JSONError) in
                    try JSONParser.parse(buffer, options: context.limits.lineParseOptions).value
                }
            } catch {
                let failure: EventFailure = (.invalidField, "line \(index + 1) is not JSON: \(error)")
                result.rejections.append(EventChecks.rejection(index: index, value: nil, raw: raw, failure))
                continue
            }
            context.check(index: index, value: value, raw: raw, into: &result)
        }
        return result
    }

    /// One NDJSON line: its bytes without the line break (and without a trailing CR).
    struct Line {
        var range: Range<Int>
        var isBlank: Bool
    }

    static func ndjsonLines(_ body: [UInt8]) -> [Line] {
        body.withUnsafeBufferPointer { (b: UnsafeBufferPointer<UInt8>) -> [Line] in
            guard let base = b.baseAddress else { return [] }
            var lines: [Line] = []
            var start = 0
            // A final line break does not open an empty last line.
            while start < b.count {
                var newline = b.count
                if let found = memchr(base + start, 0x0A, b.count - start) {
                    newline = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                }
                var end = newline
                if end > start, b[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let blank = b[start..<end].allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
                lines.append(Line(range: start..<end, isBlank: blank))
                start = newline + 1
            }
            return lines
        }
    }

    /// What every send of the request is checked against.
    struct Context {
        let keyAppID: String
        /// Microseconds.
        let receivedAt: Int64
        let limits: IngestLimits

        func check(index: Int, value: JSONValue, raw: ArraySlice<UInt8>, into result: inout ValidatedSends) {
            switch send(index: index, value: value, byteCount: raw.count) {
            case .success(let send): result.sends.append(send)
            case .failure(let failure):
                result.rejections.append(EventChecks.rejection(index: index, value: value, raw: raw, failure.value))
            }
        }

        func send(index: Int, value: JSONValue, byteCount: Int) -> Result<SendResult, EventFailureError> {
            if let failure = EventChecks.sizeFailure(byteCount: byteCount, limits: limits) {
                return .failure(EventFailureError(failure))
            }
            guard case .object(let object) = value else {
                return .failure(EventFailureError(EventChecks.notAnObject(value)))
            }
            var r = FieldReader(object)
            let eventID = r.uuid("event_id", required: true)
            let notificationID = r.uuid("notification_id", required: true)
            let appID = r.string("app_id", required: true, maxBytes: FieldLimits.appID)
            let provider: PushProvider? = r.choice("provider", required: true)
            let token = r.token("token", required: true, provider: provider)
            let installationID = r.uuid("installation_id", required: false)
            let channel = r.string("channel", required: true, maxBytes: FieldLimits.label)
            let campaign = r.string("campaign", required: false, maxBytes: FieldLimits.label)
            let sentAt = r.time("sent_at", required: true)
            let status = r.read("status", required: true, expected: "an HTTP status (100 to 599) or 0") { value in
                value.numberValue?.int64Value.flatMap { $0 == 0 || (100...599).contains($0) ? Int($0) : nil }
            }
            let reason = r.string("reason", required: false, maxBytes: FieldLimits.identifier)
            // Web Push names its collapse key `Topic` and its expiry a TTL, and has none of the
            // APNs and FCM header fields, which are ignored on it (contract v1.3).
            let web = provider == .webpush
            let apnsID = web ? nil : r.string("apns_id", required: false, maxBytes: FieldLimits.identifier)
            let unregisteredAt = web ? nil : r.time("unregistered_at", required: false)
            let priority = web ? nil : r.int("priority", required: false, in: 0...10)
            let pushType = web ? nil : r.string("push_type", required: false, maxBytes: FieldLimits.shortWord)
            let environment = web ? nil : r.string("environment", required: false, maxBytes: FieldLimits.shortWord)
            let latencyMs = r.int("latency_ms", required: false, in: 0...86_400_000)
            let responseBody = r.responseBody("response_body")
            let collapseID = web ? r.topic("topic") : r.collapseID("collapse_id")
            let ttlSeconds = web ? r.int("ttl_seconds", required: false, in: 0...StorageRules.maxTTLSeconds) : nil
            var expiresAt = r.time("expires_at", required: false)
            // Each provider's own field; the other provider's is ignored, as on telemetry.
            let mutableContent = provider == .apns ? r.bool("mutable_content", required: false) : nil
            let messageKind: MessageKind? = provider == .fcm ? r.choice("message_kind", required: false) : nil
            let urgency: Urgency? = web ? r.choice("urgency", required: false) : nil
            if web, object["collapse_id"].map({ $0 != .null }) == true {
                r.noteInvalid("collapse_id", "a webpush send names its collapse key as topic")
            }
            if ttlSeconds != nil, expiresAt != nil {
                r.noteInvalid("expires_at", "give either ttl_seconds or expires_at, not both")
            }
            if let failure = r.failure { return .failure(EventFailureError(failure)) }
            if let ttlSeconds, let sentAt {
                expiresAt = sentAt + Int64(ttlSeconds) * 1_000_000
                if let expiresAt, let problem = StorageRules.timeProblem(expiresAt) {
                    return .failure(EventFailureError((.invalidField, "invalid field \"ttl_seconds\": \(problem)")))
                }
            }
            guard let eventID, let notificationID, let appID, let provider, let token, let channel, let sentAt,
                let status
            else {
                // Unreachable: the reader reported it.
                return .failure(EventFailureError((.invalidField, "invalid send")))
            }
            guard ContractFormat.sameAppID(appID, keyAppID) else {
                return .failure(EventFailureError((.appMismatch, "the send's app_id is not the app of this key")))
            }
            if let failure = EventChecks.timeFailure(sentAt, receivedAt: receivedAt, limits: limits, what: "sent_at") {
                return .failure(EventFailureError(failure))
            }
            if let expiresAt, expiresAt < sentAt {
                return .failure(
                    EventFailureError(
                        (.invalidField, "invalid field \"expires_at\": expected a time at or after sent_at")))
            }
            let stored = ProviderResponse.resolve(
                provider: provider, status: status, body: responseBody, reason: reason, unregisteredAt: unregisteredAt)
            return .success(
                SendResult(
                    index: index, eventID: eventID, notificationID: notificationID, appID: appID, provider: provider,
                    token: token, installationID: installationID, channel: channel, campaign: campaign,
                    sentAt: RFC3339.date(microseconds: sentAt), status: status, reason: stored.reason, apnsID: apnsID,
                    unregisteredAt: stored.unregisteredAt.map { RFC3339.date(microseconds: $0) }, priority: priority,
                    pushType: pushType, environment: environment, latencyMs: latencyMs, responseBody: responseBody,
                    collapseID: collapseID, expiresAt: expiresAt.map { RFC3339.date(microseconds: $0) },
                    mutableContent: mutableContent, messageKind: messageKind, urgency: urgency))
        }
    }
}
