import PushLedgerRules
import PushLedgerSupport

/// The built-in regression rules of docs/metrics.md "Regression alerts".
public enum AlertRuleKind: String, Sendable, Hashable, Codable, CaseIterable {
    case silentLossUp = "silent_loss_up"
    case rejectionsUp = "rejections_up"
    case confirmedDeliveryDown = "confirmed_delivery_down"
    case optInDown = "opt_in_down"
    case ingestStale = "ingest_stale"

    /// The direction in which the rule's rate moving is bad; nil for `ingest_stale` (a threshold).
    public var badDirection: ChangeDirection? {
        switch self {
        case .silentLossUp, .rejectionsUp: .up
        case .confirmedDeliveryDown, .optInDown: .down
        case .ingestStale: nil
        }
    }

    /// The name of the compared rate, as outputs show it.
    public var rateName: String {
        switch self {
        case .silentLossUp: "silent_loss_rate"
        case .rejectionsUp: "rejection_share"
        case .confirmedDeliveryDown: "confirmed_delivery_rate"
        case .optInDown: "opt_in_rate"
        case .ingestStale: "minutes_since_telemetry"
        }
    }

    /// What the rate's denominator counts.
    public var volumeName: String {
        switch self {
        case .silentLossUp, .confirmedDeliveryDown: "accepted"
        case .rejectionsUp: "sends"
        case .optInDown: "prompted"
        case .ingestStale: "minutes"
        }
    }
}

/// One rule's settings. Rate rules use the z-test settings and windows; `ingest_stale` uses
/// `threshold` and `retireAfter`.
public struct AlertRule: Sendable, Hashable {
    public var kind: AlertRuleKind
    public var enabled: Bool
    /// Smallest move in the bad direction that can fire, in percentage points.
    public var minDeltaPoints: Double
    /// The one-sided p-value must be below this.
    public var maxP: Double
    /// Smallest denominator of the recent window that can fire.
    public var minVolume: Int
    /// Length of the recent window, which ends at `at` minus the confirmation window.
    public var recent: TimeSpan
    /// Length of the baseline window, which ends where the recent window starts.
    public var baseline: TimeSpan
    /// `ingest_stale`: fires when the latest telemetry is older than this.
    public var threshold: TimeSpan
    /// `ingest_stale`: an app silent for longer is retired, not alerted.
    public var retireAfter: TimeSpan

    public init(
        kind: AlertRuleKind, enabled: Bool = true, minDeltaPoints: Double, maxP: Double = 0.01, minVolume: Int,
        recent: TimeSpan = .hours(24), baseline: TimeSpan = .days(7),
        threshold: TimeSpan = .minutes(60), retireAfter: TimeSpan = .days(7)
    ) {
        self.kind = kind
        self.enabled = enabled
        self.minDeltaPoints = minDeltaPoints
        self.maxP = maxP
        self.minVolume = minVolume
        self.recent = recent
        self.baseline = baseline
        self.threshold = threshold
        self.retireAfter = retireAfter
    }

    /// The defaults of the metrics.md table.
    public static func builtIn(_ kind: AlertRuleKind) -> AlertRule {
        switch kind {
        case .silentLossUp: AlertRule(kind: kind, minDeltaPoints: 2, minVolume: 200)
        case .rejectionsUp: AlertRule(kind: kind, minDeltaPoints: 1, minVolume: 200)
        case .confirmedDeliveryDown: AlertRule(kind: kind, minDeltaPoints: 5, minVolume: 200)
        case .optInDown: AlertRule(kind: kind, minDeltaPoints: 5, minVolume: 100, recent: .days(7), baseline: .days(28))
        case .ingestStale: AlertRule(kind: kind, minDeltaPoints: 0, maxP: 1, minVolume: 0)
        }
    }
}

/// The rule set one check evaluates.
public struct AlertRuleSet: Sendable, Hashable {
    /// Every rule, in `AlertRuleKind.allCases` order (disabled ones included).
    public var rules: [AlertRule]
    /// How long a send may wait for a receipt (metrics.md rule 4); recent windows end this long
    /// before `at` so none of their sends is pending.
    public var confirmationWindow: TimeSpan

    public init(rules: [AlertRule], confirmationWindow: TimeSpan = OutcomeRules.defaultConfirmationSpan) {
        self.rules = rules
        self.confirmationWindow = confirmationWindow
    }

    /// metrics.md's defaults, every rule enabled.
    public static let builtIn = AlertRuleSet(rules: AlertRuleKind.allCases.map(AlertRule.builtIn))

    /// The enabled rules.
    public var enabledRules: [AlertRule] { rules.filter(\.enabled) }

    public func rule(_ kind: AlertRuleKind) -> AlertRule? { rules.first { $0.kind == kind } }
}
