import Foundation
import OutcomeEngine
import PushLedgerRules
import PushLedgerSupport

/// What every report covers: one app, the window [from, to) in UTC, evaluated as of `asOf`
/// (docs/metrics.md "Times"). Nothing after `asOf` counts.
public struct ReportQuery: Sendable, Equatable {
    public var app: String
    public var from: Date
    public var to: Date
    public var asOf: Date
    /// How long an accepted send without a receipt stays `pending` (default 24 h).
    public var confirmationWindow: TimeInterval

    /// The rulebook's default confirmation window, the one every report and alert starts from.
    public static var defaultConfirmationWindow: TimeInterval { OutcomeRules.defaultConfirmationWindow }

    public init(
        app: String, from: Date, to: Date, asOf: Date = Date(),
        confirmationWindow: TimeInterval = ReportQuery.defaultConfirmationWindow
    ) {
        self.app = app
        self.from = from
        self.to = to
        self.asOf = asOf
        self.confirmationWindow = confirmationWindow
    }

    /// `span` seconds of sends that are no longer pending: the window ends at `asOf` minus the
    /// confirmation window, as the regression alerts' recent window does (`query silent-loss
    /// --since 24h`). A window ending at `asOf` would hold only pending sends and receipts.
    public static func settled(
        app: String, span: TimeInterval, asOf: Date = Date(),
        confirmationWindow: TimeInterval = ReportQuery.defaultConfirmationWindow
    )
        -> ReportQuery
    {
        let to = asOf.addingTimeInterval(-confirmationWindow)
        return ReportQuery(
            app: app, from: to.addingTimeInterval(-span), to: to, asOf: asOf, confirmationWindow: confirmationWindow)
    }

    /// Rejects windows that cannot mean anything; an empty window is fine (an empty report).
    public func validated() throws(ReportError) -> ReportQuery {
        guard !app.isEmpty else { throw ReportError.invalidQuery("--app is required") }
        guard from <= to else { throw ReportError.invalidQuery("the window's start is after its end") }
        guard confirmationWindow >= 0 else { throw ReportError.invalidQuery("the confirmation window is negative") }
        return self
    }

    /// The confirmation window as a Postgres interval literal.
    var windowInterval: String { "\(Int(confirmationWindow.rounded())) seconds" }
}

/// How a send-level report slices its rows (`--by`).
public enum ReportDimension: String, Sendable, CaseIterable, Equatable {
    case channel, platform, appVersion = "app_version", campaign, day, provider
    // v1.2: of the send's as-of snapshot.
    case osVersion = "os_version", sdkInt = "sdk_int", standbyBucket = "standby_bucket"
    case backgroundRestricted = "background_restricted", ignoringBatteryOptimizations = "ignoring_battery_optimizations"
    case lowPowerMode = "low_power_mode"
    // v1.3: what the send says of itself (which sends can confirm).
    case pushType = "push_type", messageKind = "message_kind"
    // v1.3, web: the browser of the send's as-of snapshot, the push service of its endpoint.
    case browser, pushService = "push_service"

    /// A value of this dimension in JSON: `sdk_int` a number, the device-state flags booleans,
    /// the others strings (null stays null).
    func json(_ text: String?) -> JSONValue {
        guard let text else { return .null }
        switch self {
        case .sdkInt: return Int(text).map(JSONValue.int) ?? .string(text)
        case .backgroundRestricted, .ignoringBatteryOptimizations, .lowPowerMode: return .bool(text == "true")
        default: return .string(text)
        }
    }

    /// The `--by` option's help: every dimension, comma-separated.
    public static var helpText: String {
        "Slice by any of (comma-separated): " + allCases.map(\.rawValue).joined(separator: ", ")
    }

    /// Parses `--by channel,platform`; unknown names are an error naming them.
    public static func parseList(_ text: String) throws(ReportError) -> [ReportDimension] {
        var result: [ReportDimension] = []
        for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
            guard let dimension = ReportDimension(rawValue: part) else {
                let known = ReportDimension.allCases.map(\.rawValue).joined(separator: ", ")
                throw ReportError.invalidQuery("unknown dimension '\(part)' (expected one of: \(known))")
            }
            if !result.contains(dimension) { result.append(dimension) }
        }
        return result
    }
}

/// Output formats; each report says which it supports.
public enum ReportFormat: String, Sendable, CaseIterable {
    case table, json, csv, markdown, html, text
}
