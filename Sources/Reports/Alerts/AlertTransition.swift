import Foundation
import PushLedgerSupport

/// One row of `alert_transitions`: a rule's slice started or stopped firing.
public struct AlertTransition: Sendable, Hashable {
    public var id: Int64
    /// The rule's name (history may hold rules this build no longer knows).
    public var rule: String
    public var appID: String
    public var slice: AlertSlice
    public var state: AlertState
    /// The check's evaluation time.
    public var at: Date
    public var currentRate: Double?
    public var baselineRate: Double?
    public var currentVolume: Int?
    public var baselineVolume: Int?
    public var deltaPoints: Double?
    public var pValue: Double?
    /// The one-line text of `AlertText.message`, with the command to investigate.
    public var message: String
}

extension AlertTransition {
    /// The transition `finding` makes into `state` at `at`, not stored yet (id 0).
    init(_ finding: AlertFinding, state: AlertState, at: Date) {
        self.init(
            id: 0, rule: finding.rule.rawValue, appID: finding.appID, slice: finding.slice, state: state, at: at,
            currentRate: finding.currentValue, baselineRate: finding.baselineValue,
            currentVolume: finding.currentVolume,
            baselineVolume: finding.baselineVolume, deltaPoints: finding.deltaPoints, pValue: finding.pValue,
            message: AlertText.message(finding, state: state))
    }
}

/// The JSON shape of a transition or finding: `pushledger alert … --format json`, webhook
/// bodies and the rows handed to SQL. Absent values are written as null, never left out.
struct AlertRecord: Encodable {
    var transition: AlertTransition
    /// Stored transitions carry their id; findings have none yet.
    var isStored: Bool
    var windows: AlertWindows?
    /// Slack's incoming-webhook field: the message itself.
    var includeSlackText = false

    init(_ transition: AlertTransition) {
        self.transition = transition
        isStored = true
    }

    init(_ finding: AlertFinding, state: AlertState, at: Date) {
        transition = AlertTransition(finding, state: state, at: at)
        isStored = false
        windows = finding.windows
    }

    enum Key: String, CodingKey {
        case text, id, rule, appID = "app_id", slice, state, at, currentRate = "current_rate", baselineRate =
            "baseline_rate"
        case currentVolume = "current_volume", baselineVolume = "baseline_volume", deltaPoints = "delta_pp"
        case pValue = "p_value", message, recentFrom = "recent_from", recentTo = "recent_to"
        case baselineFrom = "baseline_from", baselineTo = "baseline_to"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        let t = transition
        if includeSlackText { try c.encode(AlertText.slackEscaped(t.message), forKey: .text) }
        if isStored { try c.encode(t.id, forKey: .id) }
        try c.encode(t.rule, forKey: .rule)
        try c.encode(t.appID, forKey: .appID)
        try c.encode(t.slice.dimensions, forKey: .slice)
        try c.encode(t.state, forKey: .state)
        try c.encode(Timestamp.rfc3339(t.at), forKey: .at)
        try c.encode(t.currentRate, forKey: .currentRate)
        try c.encode(t.baselineRate, forKey: .baselineRate)
        try c.encode(t.currentVolume, forKey: .currentVolume)
        try c.encode(t.baselineVolume, forKey: .baselineVolume)
        try c.encode(t.deltaPoints, forKey: .deltaPoints)
        try c.encode(t.pValue, forKey: .pValue)
        try c.encode(t.message, forKey: .message)
        if let windows {
            try c.encode(Timestamp.rfc3339(windows.recentFrom), forKey: .recentFrom)
            try c.encode(Timestamp.rfc3339(windows.recentTo), forKey: .recentTo)
            try c.encode(Timestamp.rfc3339(windows.baselineFrom), forKey: .baselineFrom)
            try c.encode(Timestamp.rfc3339(windows.baselineTo), forKey: .baselineTo)
        }
    }

    /// Compact JSON with sorted keys (stable output for diffs and tests).
    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings, numbers and dictionaries cannot fail.
        return String(decoding: try! encoder.encode(value), as: UTF8.self)
    }
}
