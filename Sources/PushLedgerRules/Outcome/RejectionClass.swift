import Foundation

/// Classes of provider rejections used by breakdowns and alerts (metrics.md, "Rates").
///
/// APNs and FCM use disjoint reason strings and FCM never answers 410, so status and reason
/// decide without the provider — the same reading as `pushledger_reason_class` in sql/.
public enum RejectionClass: String, Sendable, CaseIterable, Codable {
    case tokenInvalid = "token_invalid", throttled, auth, payload
    case providerError = "provider_error"
    /// A non-2xx answer none of the named classes covers (e.g. APNs 404 BadPath, 405).
    case other

    /// The class of a rejected attempt; nil when the provider accepted it (2xx).
    public static func of(status: Int, reason: String?) -> RejectionClass? {
        if (200...299).contains(status) { return nil }
        if isTokenInvalid(status: status, reason: reason) { return .tokenInvalid }
        if status == 429 || reason == "QUOTA_EXCEEDED" { return .throttled }
        if status == 401 || status == 403 { return .auth }
        if status == 413 || status == 400 || reason == "INVALID_ARGUMENT" { return .payload }
        if status == 0 || status >= 500 { return .providerError }
        return .other
    }

    /// token_invalid: APNs 410 (any reason) or 400 `BadDeviceToken`; FCM reason `UNREGISTERED`
    /// (any status). Only rejected attempts (non-2xx) count.
    public static func isTokenInvalid(status: Int, reason: String?) -> Bool {
        if (200...299).contains(status) { return false }
        return status == 410 || (status == 400 && reason == "BadDeviceToken") || reason == "UNREGISTERED"
    }
}
