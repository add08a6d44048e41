import Foundation
import Testing

@testable import PushLedgerContract
@testable import PushLedgerSupport

/// Request bodies for the contract tests, built with the project's JSON builder so each test
/// states only what it changes.
enum Fixture {
    static let appID = "com.example.shop"
    static let installationID = "7f1c6a0e-3c55-4c0e-9d55-1b7a3f0f9a21"
    static let notificationID = "5a0d3f4e-0c52-4f0a-8c7e-2d5f3c9b1a77"
    static let apnsToken = String(repeating: "4f1a", count: 16)
    /// The server's receive time in every test.
    static let receivedAt = RFC3339.date("2026-11-30T10:00:06Z")!

    static func eventID(_ n: Int) -> String { String(format: "c2b0b6a4-8b1e-4f5b-9a51-%012x", n) }

    /// An object with `key` set to `value` (replacing the first copy), or removed when nil.
    static func with(_ object: JSONValue, _ key: String, _ value: JSONValue?) -> JSONValue {
        guard case .object(var o) = object else { return object }
        if let index = o.members.firstIndex(where: { $0.key == key }) {
            if let value { o.members[index].value = value } else { o.members.remove(at: index) }
        } else if let value {
            o.append(key, value)
        }
        return .object(o)
    }

    static func with(_ object: JSONValue, _ changes: [(String, JSONValue?)]) -> JSONValue {
        changes.reduce(object) { with($0, $1.0, $1.1) }
    }

    /// A telemetry event: common fields plus the type's own.
    static func event(
        _ type: String, n: Int = 1, at: String = "2026-11-30T09:59:00.000Z", _ fields: JSONValue = [:]
    ) -> JSONValue {
        var object = JSONObject([
            .init(key: "event_id", value: .string(eventID(n))), .init(key: "type", value: .string(type)),
            .init(key: "at", value: .string(at)),
        ])
        object.members += fields.objectValue?.members ?? []
        return .object(object)
    }

    /// One valid event of each type for the given platform.
    static func validEvent(_ type: String, platform: Platform = .android, n: Int = 1) -> JSONValue {
        switch type {
        case "notification_settings":
            platform == .ios
                ? event(type, n: n, ["authorization_status": "authorized"])
                : event(type, n: n, ["notifications_enabled": true])
        case "permission_prompt":
            event(type, n: n, ["placement": "first_screen", "prompt": "system", "result": "granted"])
        case "experiment_exposure": event(type, n: n, ["experiment": "push_prompt_timing", "variant": "first_screen"])
        case "push_token": event(type, n: n, ["provider": "apns", "token": .string(apnsToken)])
        case "notification_received": event(type, n: n, ["notification_id": .string(notificationID)])
        default: event(type, n: n, ["notification_id": .string(notificationID), "action": "default"])
        }
    }

    static func envelope(platform: String = "android", events: [JSONValue]) -> JSONValue {
        [
            "app_id": .string(appID), "installation_id": .string(installationID), "platform": .string(platform),
            "app_version": "5.2.0", "os_version": "14", "sdk_int": 34, "sent_at": "2026-11-30T10:00:05.120Z",
            "events": .array(events),
        ]
    }

    static func telemetry(
        _ body: JSONValue, limits: IngestLimits = IngestLimits()
    ) throws(EnvelopeError) -> ValidatedTelemetry {
        try TelemetryValidator.validate(
            body: body.serialized(), keyAppID: appID, receivedAt: receivedAt, limits: limits)
    }

    /// Validates a batch of one event and returns its single rejection (nil when accepted).
    static func rejection(
        of event: JSONValue, platform: String = "android", limits: IngestLimits = IngestLimits()
    ) throws -> Rejection? {
        let result = try telemetry(envelope(platform: platform, events: [event]), limits: limits)
        #expect(result.events.count + result.rejections.count == 1)
        return result.rejections.first
    }

    /// The contract's example send.
    static let send: JSONValue = [
        "event_id": "c2b0b6a4-8b1e-4f5b-9a51-4d3a0f5d8e10", "notification_id": .string(notificationID),
        "app_id": .string(appID), "provider": "apns", "token": .string(apnsToken),
        "installation_id": .string(installationID), "channel": "orders", "campaign": "order_out_for_delivery",
        "sent_at": "2026-11-30T10:00:00.000Z", "status": 200, "reason": nil,
        "apns_id": "5a0d3f4e-0c52-4f0a-8c7e-2d5f3c9b1a77", "unregistered_at": nil, "priority": 10,
        "push_type": "alert", "environment": "production", "latency_ms": 41,
    ]

    static func sends(
        _ sends: [JSONValue], limits: IngestLimits = IngestLimits()
    ) throws(EnvelopeError) -> ValidatedSends {
        try SendsValidator.validate(
            body: (["sends": .array(sends)] as JSONValue).serialized(), format: .json, keyAppID: appID,
            receivedAt: receivedAt, limits: limits)
    }

    static func ndjson(_ text: String, limits: IngestLimits = IngestLimits()) throws(EnvelopeError) -> ValidatedSends {
        try SendsValidator.validate(
            body: Array(text.utf8), format: .ndjson, keyAppID: appID, receivedAt: receivedAt, limits: limits)
    }

    /// The single rejection of a one-send request (nil when accepted).
    static func rejection(ofSend send: JSONValue, limits: IngestLimits = IngestLimits()) throws -> Rejection? {
        let result = try sends([send], limits: limits)
        #expect(result.sends.count + result.rejections.count == 1)
        return result.rejections.first
    }

    /// Microseconds of a date, for exact time comparisons.
    static func micros(_ date: Date) -> Int64 { RFC3339.microseconds(of: date) }
    static func micros(_ text: String) -> Int64 { RFC3339.microseconds(text)! }
}
