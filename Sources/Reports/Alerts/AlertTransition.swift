import Foundation
import PushLedgerCore

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

/// The JSON shape of a transition or finding: `pushledger alert … --format json`, webhook
/// bodies and the rows handed to SQL. Absent values are written as null, never left out.
struct AlertRecord: Encodable {
    var rule: String
    var appID: String
    var slice: [String: String]
    var state: AlertState
    var at: Date
    var currentRate: Double?
    var baselineRate: Double?
    var currentVolume: Int?
    var baselineVolume: Int?
    var deltaPoints: Double?
    var pValue: Double?
    var message: String
    var id: Int64?
    var windows: AlertWindows?
    /// Slack's incoming-webhook field: the message itself.
    var includeSlackText = false

    init(_ transition: AlertTransition) {
        rule = transition.rule
        appID = transition.appID
        slice = transition.slice.dimensions
        state = transition.state
        at = transition.at
        currentRate = transition.currentRate
        baselineRate = transition.baselineRate
        currentVolume = transition.currentVolume
        baselineVolume = transition.baselineVolume
        deltaPoints = transition.deltaPoints
        pValue = transition.pValue
        message = transition.message
        id = transition.id
    }

    init(_ finding: AlertFinding, state: AlertState, at: Date) {
        rule = finding.rule.rawValue
        appID = finding.appID
        slice = finding.slice.dimensions
        self.state = state
        self.at = at
        currentRate = finding.currentValue
        baselineRate = finding.baselineValue
        currentVolume = finding.currentVolume
        baselineVolume = finding.baselineVolume
        deltaPoints = finding.deltaPoints
        pValue = finding.pValue
        message = AlertText.message(finding, state: state)
        windows = finding.windows
    }

    enum Key: String, CodingKey {
        case text, id, rule, appID = "app_id", slice, state, at, currentRate = "current_rate", baselineRate = "baseline_rate"
        case currentVolume = "current_volume", baselineVolume = "baseline_volume", deltaPoints = "delta_pp"
        case pValue = "p_value", message, recentFrom = "recent_from", recentTo = "recent_to"
        case baselineFrom = "baseline_from", baselineTo = "baseline_to"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        if includeSlackText { try c.encode(message, forKey: .text) }
        if let id { try c.encode(id, forKey: .id) }
        try c.encode(rule, forKey: .rule)
        try c.encode(appID, forKey: .appID)
        try c.encode(slice, forKey: .slice)
        try c.encode(state, forKey: .state)
        try c.encode(Timestamp.rfc3339(at), forKey: .at)
        try c.encode(currentRate, forKey: .currentRate)
        try c.encode(baselineRate, forKey: .baselineRate)
        try c.encode(currentVolume, forKey: .currentVolume)
        try c.encode(baselineVolume, forKey: .baselineVolume)
        try c.encode(deltaPoints, forKey: .deltaPoints)
        try c.encode(pValue, forKey: .pValue)
        try c.encode(message, forKey: .message)
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
