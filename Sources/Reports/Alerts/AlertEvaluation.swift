import Foundation
import PushLedgerRules
import PushLedgerSupport

/// The slice an alert is about, besides its app: e.g. platform and channel, or provider and
/// reason class. Stored as a JSON object in `alert_transitions.slice`.
public struct AlertSlice: Sendable, Hashable {
    /// Dimension names and values; names are unique.
    public let dimensions: [String: String]

    public init(_ dimensions: [String: String] = [:]) { self.dimensions = dimensions }

    /// The dimensions in a fixed, readable order: platform, provider, channel, reason_class, then by name.
    public var ordered: [(name: String, value: String)] {
        dimensions.sorted {
            Self.rank($0.key) < Self.rank($1.key) || (Self.rank($0.key) == Self.rank($1.key) && $0.key < $1.key)
        }
        .map { (name: $0.key, value: $0.value) }
    }

    /// `platform=android channel=promotions`.
    public var label: String { ordered.map { "\($0.name)=\($0.value)" }.joined(separator: " ") }

    private static func rank(_ name: String) -> Int {
        ["platform", "provider", "channel", "reason_class"].firstIndex(of: name) ?? 4
    }
}

/// The recent and baseline windows of a rate rule for a check at `at`: recent ends at `at`
/// minus the confirmation window (so none of its sends is pending), baseline ends where recent
/// starts. Both are [from, to).
public struct AlertWindows: Sendable, Hashable {
    public let recentFrom: Date
    public let recentTo: Date
    public let baselineFrom: Date
    public let baselineTo: Date

    public init(rule: AlertRule, at: Date, confirmationWindow: TimeSpan) {
        recentTo = at.addingTimeInterval(-confirmationWindow.timeInterval)
        recentFrom = recentTo.addingTimeInterval(-rule.recent.timeInterval)
        baselineTo = recentFrom
        baselineFrom = baselineTo.addingTimeInterval(-rule.baseline.timeInterval)
    }
}

/// One slice's rate in the recent and the baseline window.
public struct AlertObservation: Sendable, Hashable {
    public var rule: AlertRuleKind
    public var appID: String
    public var slice: AlertSlice
    public var current: Rate
    public var baseline: Rate
    /// Independent units (installations) behind each denominator; nil: every item is one.
    public var units: (current: Int, baseline: Int)? {
        currentUnits.flatMap { current in baselineUnits.map { (current, $0) } }
    }
    private var currentUnits: Int?
    private var baselineUnits: Int?

    public init(
        rule: AlertRuleKind, appID: String, slice: AlertSlice, current: Rate, baseline: Rate,
        units: (current: Int, baseline: Int)? = nil
    ) {
        self.rule = rule
        self.appID = appID
        self.slice = slice
        self.current = current
        self.baseline = baseline
        currentUnits = units?.current
        baselineUnits = units?.baseline
    }
}

/// A rule's verdict on one slice, with the figures an on-call engineer needs.
public struct AlertFinding: Sendable, Hashable {
    public var rule: AlertRuleKind
    public var appID: String
    public var slice: AlertSlice
    public var firing: Bool
    /// Rate rules: the recent rate in [0, 1]; `ingest_stale`: minutes since the latest telemetry.
    public var currentValue: Double?
    /// Rate rules: the baseline rate; `ingest_stale`: the threshold in minutes.
    public var baselineValue: Double?
    public var currentVolume: Int?
    public var baselineVolume: Int?
    /// Change of the rate from baseline to recent, in percentage points.
    public var deltaPoints: Double?
    /// One-sided pooled z-test p-value in the rule's bad direction (installations as the sample
    /// sizes for the delivery rules).
    public var pValue: Double?
    /// Rate rules only.
    public var windows: AlertWindows?
    /// `ingest_stale` only: the latest telemetry's receive time.
    public var latestTelemetry: Date?
    /// `silent_loss_up` only: the cause of unconfirmed sends whose rate (of accepted) moved most.
    public var causeMove: CauseMove?
}

/// A cause's rate of accepted in the recent and the baseline window.
public struct CauseMove: Sendable, Hashable {
    public var cause: UnconfirmedCause
    public var current: Double
    public var baseline: Double
    /// Change in percentage points.
    public var deltaPoints: Double { (current - baseline) * 100 }

    /// The cause that moved most between two windows' counts; nil when either has no accepted send.
    public init?(current: CauseCounts, baseline: CauseCounts) {
        guard let moved = current.mostMoved(since: baseline), let c = current.rate(moved.cause).value,
            let b = baseline.rate(moved.cause).value
        else { return nil }
        (cause, self.current, self.baseline) = (moved.cause, c, b)
    }
}

/// The decision rules of docs/metrics.md "Regression alerts", without I/O.
public enum AlertEvaluator {
    /// Fires when the rate moved in the bad direction by at least `minDeltaPoints`, the one-sided
    /// pooled z-test in that direction gives p below `maxP`, and the recent denominator is at
    /// least `minVolume`. A slice with no volume in either window cannot fire. With `units`, the
    /// test's sample sizes are those units (clustered sends), not the denominators.
    public static func evaluate(_ observation: AlertObservation, rule: AlertRule, windows: AlertWindows) -> AlertFinding
    {
        var finding = AlertFinding(
            rule: observation.rule, appID: observation.appID, slice: observation.slice, firing: false,
            currentValue: observation.current.value, baselineValue: observation.baseline.value,
            currentVolume: observation.current.denominator, baselineVolume: observation.baseline.denominator,
            windows: windows)
        guard let direction = rule.kind.badDirection, let current = observation.current.value,
            let baseline = observation.baseline.value
        else { return finding }
        let delta = (current - baseline) * 100
        let p =
            Statistics.oneSidedPValue(
                observation.current, versus: observation.baseline, direction: direction,
                sampleSizes: observation.units.map { (candidate: $0.current, baseline: $0.baseline) }) ?? 1
        finding.deltaPoints = delta
        finding.pValue = p
        let moved = direction == .up ? delta : -delta
        finding.firing =
            moved >= rule.minDeltaPoints && p < rule.maxP && observation.current.denominator >= rule.minVolume
        return finding
    }

    /// `ingest_stale` for one app: fires when its latest telemetry (received at or before `at`)
    /// is older than the threshold. nil when the app is retired (nothing within `retireAfter`).
    public static func staleness(appID: String, latest: Date?, rule: AlertRule, at: Date) -> AlertFinding? {
        guard let latest, at.timeIntervalSince(latest) <= rule.retireAfter.timeInterval else { return nil }
        let minutes = at.timeIntervalSince(latest) / 60
        return AlertFinding(
            rule: .ingestStale, appID: appID, slice: AlertSlice(), firing: minutes > rule.threshold.timeInterval / 60,
            currentValue: minutes, baselineValue: rule.threshold.timeInterval / 60, latestTelemetry: latest)
    }
}
