import Foundation

/// Why an unconfirmed send went unconfirmed (metrics.md, "Why a send is unconfirmed"): evidence
/// from what devices and senders reported, not certainty.
public enum UnconfirmedCause: String, Sendable, CaseIterable, Codable {
    case superseded
    case appStopped = "app_stopped"
    case expired
    case deviceInactive = "device_inactive"
    case unexplained
}

/// A telemetry event of the send's installation: a possible sign of life.
public struct SignOfLife: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A `notification_received` or `notification_opened` of this notification.
        case receipt(notificationID: UUID)
        /// A `notification_settings` snapshot and its `force_stopped_before_start`.
        case settings(forceStoppedBeforeStart: Bool?)
        /// Any other event type.
        case other
    }
    public var kind: Kind
    public var at: Date
    public var receivedAt: Date
    public var eventID: UUID
    public init(kind: Kind, at: Date, receivedAt: Date, eventID: UUID) {
        self.kind = kind
        self.at = at
        self.receivedAt = receivedAt
        self.eventID = eventID
    }
}

/// An attempt of the same app, resolved to the same installation: what could replace a send at
/// the provider.
public struct InstallationAttempt: Sendable, Equatable {
    public var notificationID: UUID
    public var provider: String
    public var collapseID: String?
    public var sentAt: Date
    public var status: Int
    public init(notificationID: UUID, provider: String, collapseID: String?, sentAt: Date, status: Int) {
        self.notificationID = notificationID
        self.provider = provider
        self.collapseID = collapseID
        self.sentAt = sentAt
        self.status = status
    }
}

/// The cause rules 1–5 of metrics.md, in order; SQL's `pushledger_cause_rule` must match.
public enum CauseRules {
    /// The earliest sign of life in (`after`, `asOf`], ties by received time, then event id
    /// compared as a UUID value (its lower-case text).
    public static func firstSignOfLife(_ life: [SignOfLife], after: Date, asOf: Date) -> SignOfLife? {
        life.filter { $0.at > after && $0.at <= asOf }.min { a, b in
            if a.at != b.at { return a.at < b.at }
            if a.receivedAt != b.receivedAt { return a.receivedAt < b.receivedAt }
            return a.eventID.uuidString.lowercased() < b.eventID.uuidString.lowercased()
        }
    }

    /// The cause of an unconfirmed send.
    /// - Parameters:
    ///   - life: the installation's telemetry events (any time; those outside (sentAt, asOf] are ignored).
    ///   - attempts: the app's attempts resolved to the same installation.
    public static func cause(
        notificationID: UUID, provider: String, collapseID: String?, expiresAt: Date?, sentAt: Date,
        life: [SignOfLife], attempts: [InstallationAttempt], asOf: Date
    ) -> UnconfirmedCause {
        guard let first = firstSignOfLife(life, after: sentAt, asOf: asOf) else { return .deviceInactive }
        switch first.kind {
        case .receipt(let other) where other != notificationID:
            let replaced = attempts.contains { a in
                a.notificationID == other && (200...299).contains(a.status) && a.sentAt > sentAt && a.sentAt <= asOf
                    && ((provider == "apns" && a.provider == "apns")
                        || (collapseID != nil && a.collapseID == collapseID))
            }
            if replaced { return .superseded }
        case .settings(let forceStopped) where forceStopped == true:
            return .appStopped
        default: break
        }
        if let expiresAt, first.at > expiresAt { return .expired }
        return .unexplained
    }
}

/// Time-to-receipt buckets (metrics.md, "Delivery latency"), in order.
public enum LatencyBucket: String, Sendable, CaseIterable, Codable, Comparable {
    case lt10s = "lt_10s", lt1m = "lt_1m", lt10m = "lt_10m", lt1h = "lt_1h", lt6h = "lt_6h", lt24h = "lt_24h"
    case ge24h = "ge_24h"

    /// Upper bounds in seconds of every bucket but the last.
    static let bounds: [TimeInterval] = [10, 60, 600, 3_600, 21_600, 86_400]

    /// The bucket of a time to receipt (negative counts as 0).
    public static func of(seconds: TimeInterval) -> LatencyBucket {
        let index = bounds.firstIndex { seconds < $0 } ?? bounds.count
        return allCases[index]
    }

    /// The bucket of a send's earliest receipt.
    public static func of(sentAt: Date, firstReceiptAt: Date) -> LatencyBucket {
        of(seconds: firstReceiptAt.timeIntervalSince(sentAt))
    }

    /// An hour or more late: counted in `late_share`.
    public var isLate: Bool { self >= .lt6h }

    public static func < (lhs: LatencyBucket, rhs: LatencyBucket) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The bucket holding the nearest-rank percentile of `perMille`/1000 (the ⌈p·n⌉-th smallest,
    /// in integers: 0.9 · 10 is 9, not 9.000000000000002) of bucket counts; nil when they sum to 0.
    public static func percentile(perMille: Int, counts: [LatencyBucket: Int]) -> LatencyBucket? {
        let n = allCases.reduce(0) { $0 + (counts[$1] ?? 0) }
        guard n > 0 else { return nil }
        let rank = max(1, (perMille * n + 999) / 1000)
        var seen = 0
        for bucket in allCases {
            seen += counts[bucket] ?? 0
            if seen >= rank { return bucket }
        }
        return .ge24h
    }
}
