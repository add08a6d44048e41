import Foundation
import PushLedgerContract

/// Classes of provider rejections used by breakdowns and alerts (metrics.md, "Rates").
///
/// APNs and FCM use disjoint reason strings and FCM never answers 410, so for them status and
/// reason decide; a Web Push 404 is a subscription gone, where APNs 404 is a bad path — the same
/// reading as `pushledger_reason_class` in sql/.
public enum RejectionClass: String, Sendable, CaseIterable, Codable {
    case tokenInvalid = "token_invalid", throttled, auth, payload
    case providerError = "provider_error"
    /// A non-2xx answer none of the named classes covers (e.g. APNs 404 BadPath, 405).
    case other

    /// The class of a rejected attempt; nil when the provider accepted it (2xx).
    public static func of(provider: PushProvider, status: Int, reason: String?) -> RejectionClass? {
        if (200...299).contains(status) { return nil }
        if isTokenInvalid(provider: provider, status: status, reason: reason) { return .tokenInvalid }
        if status == 429 || reason == "QUOTA_EXCEEDED" { return .throttled }
        if status == 401 || status == 403 { return .auth }
        if status == 413 || status == 400 || reason == "INVALID_ARGUMENT" { return .payload }
        if status == 0 || status >= 500 { return .providerError }
        return .other
    }

    /// token_invalid: APNs 410 (any reason) or 400 `BadDeviceToken`; FCM reason `UNREGISTERED`
    /// (any status); Web Push 404 or 410 (the subscription is gone). Only rejected attempts
    /// (non-2xx) count.
    public static func isTokenInvalid(provider: PushProvider, status: Int, reason: String?) -> Bool {
        if (200...299).contains(status) { return false }
        return status == 410 || (status == 400 && reason == "BadDeviceToken") || reason == "UNREGISTERED"
            || (provider == .webpush && status == 404)
    }
}
