import Foundation
import PushLedgerSupport

/// What the server derives from a provider's raw answer (`response_body` on a send,
/// telemetry-v1.md "Raw provider responses on sends"): one definition for `POST /v1/sends` and
/// `pushledger import sends`, which both validate through `SendsValidator`.
public enum ProviderResponse {
    /// Largest `response_body`, in UTF-8 bytes (4 KiB); longer is `invalid_field`.
    public static let maxBodyBytes = 4096

    /// The `@type` of the FCM HTTP v1 error detail that carries FCM's own error code.
    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"

    /// Firebase Admin SDK error codes and the FCM HTTP v1 names they stand for. Other
    /// `messaging/…` codes are stored as given.
    static let adminSDKCodes: [String: String] = [
        "messaging/registration-token-not-registered": "UNREGISTERED",
        "messaging/invalid-argument": "INVALID_ARGUMENT",
        "messaging/invalid-registration-token": "INVALID_ARGUMENT",
        "messaging/message-rate-exceeded": "QUOTA_EXCEEDED",
        "messaging/device-message-rate-exceeded": "QUOTA_EXCEEDED",
        "messaging/mismatched-credential": "SENDER_ID_MISMATCH",
        "messaging/third-party-auth-error": "THIRD_PARTY_AUTH_ERROR",
        "messaging/server-unavailable": "UNAVAILABLE",
        "messaging/internal-error": "INTERNAL",
    ]

    /// A `reason` as stored: a Firebase Admin SDK code becomes its FCM HTTP v1 name.
    public static func normalizedReason(_ reason: String) -> String {
        adminSDKCodes[reason] ?? reason
    }

    /// Fields read out of a body; nil where the body says nothing.
    public struct Derived: Sendable, Equatable {
        public var reason: String?
        /// Microseconds since 1970.
        public var unregisteredAt: Int64?
        public init(reason: String? = nil, unregisteredAt: Int64? = nil) {
            self.reason = reason
            self.unregisteredAt = unregisteredAt
        }
    }

    /// Reads `reason` (and, for APNs 410, `unregistered_at`) out of a provider's body. For APNs and
    /// FCM, a body that is not JSON, or lacks the members, derives nothing; so does a reason that
    /// could not be stored as an explicit one (empty, over 255 bytes, or with U+0000). Web Push
    /// reads text bodies too (`webPushReason`).
    public static func derive(provider: PushProvider, status: Int, body: String) -> Derived {
        let object = { (try? JSONParser.parseValue(Array(body.utf8)))?.objectValue }
        switch provider {
        case .webpush: return Derived(reason: webPushReason(status: status, body: body))
        case .apns:
            guard !(200...299).contains(status), let object = object() else { return Derived() }
            var derived = Derived(reason: storable(object["reason"]?.stringValue))
            if status == 410, let millis = object["timestamp"]?.numberValue?.int64Value {
                let (micros, overflow) = millis.multipliedReportingOverflow(by: 1000)
                if !overflow, StorageRules.timeProblem(micros) == nil { derived.unregisteredAt = micros }
            }
            return derived
        case .fcm:
            guard let error = object()?["error"]?.objectValue else { return Derived() }
            let fcmCode = error["details"]?.arrayValue?.lazy
                .compactMap { $0.objectValue }
                .first { $0["@type"]?.stringValue == fcmErrorType }?["errorCode"]?.stringValue
            return Derived(reason: storable(fcmCode) ?? storable(error["status"]?.stringValue))
        }
    }

    /// The stored `reason` and `unregistered_at` of a send: explicit fields win over derived
    /// ones, and the reason is normalized either way.
    public static func resolve(
        provider: PushProvider, status: Int, body: String?, reason: String?, unregisteredAt: Int64?
    ) -> (reason: String?, unregisteredAt: Int64?) {
        var derived = Derived()
        if let body, reason == nil || unregisteredAt == nil {
            derived = derive(provider: provider, status: status, body: body)
        }
        return ((reason ?? derived.reason).map(normalizedReason), unregisteredAt ?? derived.unregisteredAt)
    }

    /// A push service's error text (the sender libraries' rule, `webpush_rows` of
    /// Tests/Fixtures/sender-fields.json): outside 2xx, a JSON body's `reason` (Apple), else its
    /// `error` (Mozilla's autopush); a text body's first non-blank line (FCM); nothing from an
    /// HTML page. Trimmed, and cut to 255 bytes on a character boundary.
    static func webPushReason(status: Int, body: String) -> String? {
        guard status != 0, !(200...299).contains(status), !body.isEmpty, !FieldReader.containsNUL(body) else {
            return nil
        }
        let line: String?
        if let value = try? JSONParser.parseValue(Array(body.utf8)) {
            guard let object = value.objectValue else { return nil }
            line = ["reason", "error"].lazy.compactMap {
                object[$0]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            .first { !$0.isEmpty }
        } else {
            guard !body.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<") else { return nil }
            line = body.components(separatedBy: .newlines).lazy
                .map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
        }
        guard let line else { return nil }
        var cut = Substring(line)
        while cut.utf8.count > FieldLimits.identifier { cut = cut.dropLast() }
        return cut.isEmpty ? nil : String(cut)
    }

    static func storable(_ reason: String?) -> String? {
        guard let reason, FieldReader.stringProblem(reason, maxBytes: FieldLimits.identifier) == nil else { return nil }
        return reason
    }
}
