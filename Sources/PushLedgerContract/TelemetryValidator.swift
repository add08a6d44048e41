import Foundation
import PushLedgerSupport

/// Validates a `POST /v1/telemetry` body (docs/contract.md). The server has already checked
/// the body's byte limits and decompressed it.
public enum TelemetryValidator {
    /// Envelope problems throw (400 `invalid_json` / `missing_field` / `invalid_field`,
    /// 403 `app_mismatch`, 413 `too_many_events`, in that order); per-event problems become
    /// rejections, checked in the contract's order: `too_large`, `unknown_type`,
    /// `missing_field`, `invalid_field`, `too_old` / `in_future` (on the skew-corrected time).
    /// Envelope fields: `app_id` (1…255 bytes), `installation_id`, `platform`, `events`
    /// required; `app_version`, `os_version` (1…128 bytes), `sdk_int` (1…1000), `sent_at`
    /// optional; on web `browser` and `browser_version` (1…128 bytes) required. Unknown fields are
    /// ignored; a repeated key is `invalid_field`.
    public static func validate(
        body: [UInt8], keyAppID: String, receivedAt: Date, limits: IngestLimits
    ) throws(EnvelopeError) -> ValidatedTelemetry {
        let document: JSONDocument
        do { document = try JSONParser.parse(body, options: limits.bodyParseOptions) } catch {
            throw .invalidJSON(error)
        }
        guard case .object(let root) = document.value else { throw .bodyNotObject(document.value) }

        var r = FieldReader(root)
        let appID = r.string("app_id", required: true, maxBytes: FieldLimits.appID)
        let installationID = r.uuid("installation_id", required: true)
        let platform: Platform? = r.choice("platform", required: true)
        let appVersion = r.string("app_version", required: false, maxBytes: FieldLimits.version)
        let osVersion = r.string("os_version", required: false, maxBytes: FieldLimits.version)
        let sdkInt = r.int("sdk_int", required: false, in: 1...1000)
        let sentAt = r.time("sent_at", required: false)
        // Web only (contract v1.3): required there, ignored elsewhere like the other platform's fields.
        let browser: Browser? = platform == .web ? r.choice("browser", required: true) : nil
        let browserVersion =
            platform == .web ? r.string("browser_version", required: true, maxBytes: FieldLimits.version) : nil
        let events = r.array("events", required: true)
        if let failure = r.failure { throw .envelope(failure) }
        guard let appID, let installationID, let platform, let events,
            let ranges = document.elementRanges(ofMember: "events")
        else { throw .envelope((.missingField, "missing field")) }  // unreachable: the reader reported it
        guard ContractFormat.sameAppID(appID, keyAppID) else {
            throw EnvelopeError(
                status: 403, code: "app_mismatch", message: "the batch's app_id is not the app of this key")
        }
        guard events.count <= limits.maxEventsPerRequest else {
            throw .tooManyEvents(events.count, limits: limits, noun: "events")
        }

        let envelope = TelemetryEnvelope(
            appID: appID, installationID: installationID, platform: platform, appVersion: appVersion,
            osVersion: osVersion, sdkInt: platform == .web ? nil : sdkInt,
            sentAt: sentAt.map { RFC3339.date(microseconds: $0) }, browser: browser, browserVersion: browserVersion)
        let context = Context(
            platform: platform, sentAt: sentAt, receivedAt: RFC3339.microseconds(of: receivedAt), limits: limits)
        var valid: [TelemetryEvent] = []
        valid.reserveCapacity(events.count)
        var rejections: [Rejection] = []
        for (index, value) in events.enumerated() {
            switch context.event(index: index, value: value, byteCount: ranges[index].count) {
            case .success(let event): valid.append(event)
            case .failure(let failure):
                rejections.append(
                    EventChecks.rejection(index: index, value: value, raw: body[ranges[index]], failure.value))
            }
        }
        return ValidatedTelemetry(envelope: envelope, events: valid, rejections: rejections)
    }

    /// What every event of the batch is checked against.
    struct Context {
        let platform: Platform
        /// Microseconds; nil when the batch had no `sent_at`.
        let sentAt: Int64?
        let receivedAt: Int64
        let limits: IngestLimits

        func event(index: Int, value: JSONValue, byteCount: Int) -> Result<TelemetryEvent, EventFailureError> {
            if let failure = EventChecks.sizeFailure(byteCount: byteCount, limits: limits) {
                return .failure(EventFailureError(failure))
            }
            guard case .object(let object) = value else {
                return .failure(EventFailureError(EventChecks.notAnObject(value)))
            }
            if case .string(let type) = object["type"], !TelemetryPayloadReader.knownTypes.contains(type) {
                return .failure(EventFailureError((.unknownType, "unknown event type\(EventChecks.quoted(type))")))
            }
            var r = FieldReader(object)
            let eventID = r.uuid("event_id", required: true)
            let type = r.read("type", required: true, expected: "an event type name") { $0.stringValue }
            let at = r.time("at", required: true)
            let payload = type.flatMap { TelemetryPayloadReader.read(type: $0, platform: platform, &r) }
            if let failure = r.failure { return .failure(EventFailureError(failure)) }
            guard let eventID, let at, let payload else {
                return .failure(EventFailureError((.invalidField, "invalid event")))
            }

            let occurredAt = occurredAt(at: at)
            if let failure = EventChecks.timeFailure(
                occurredAt, receivedAt: receivedAt, limits: limits, what: "the event time (skew-corrected)")
            {
                return .failure(EventFailureError(failure))
            }
            return .success(
                TelemetryEvent(
                    index: index, eventID: eventID, at: RFC3339.date(microseconds: at),
                    occurredAt: RFC3339.date(microseconds: occurredAt), payload: payload))
        }

        /// Segment's skew correction: `received_at - (sent_at - at)`; `at` as is without `sent_at`.
        func occurredAt(at: Int64) -> Int64 {
            guard let sentAt else { return at }
            return receivedAt - (sentAt - at)
        }
    }
}
