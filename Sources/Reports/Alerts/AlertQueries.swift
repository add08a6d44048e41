import Foundation
import Postgres
import PushLedgerRules
import PushLedgerSupport

/// Reads each rule's counts per slice from the functions of sql/alerts/counts.sql and
/// turns them into findings. One query per rule: the recent and baseline windows full-joined.
enum AlertQueries {
    /// Where a rate rule's numerator and denominator come from.
    struct RateSource {
        var function: String
        /// Slice columns besides app_id.
        var keys: [String]
        var numerator: String
        var denominator: String
        /// Independent units behind the denominator (installations), when its items cluster.
        var units: String? = nil
        /// Whether the function classifies sends and so takes the confirmation window.
        var takesConfirmationWindow: Bool
        /// Whether it returns the cause counts of unconfirmed sends (`superseded` … `unexplained`).
        var causes = false

        static func of(_ kind: AlertRuleKind) -> RateSource? {
            switch kind {
            case .silentLossUp:
                RateSource(
                    function: "pushledger_alert_delivery_counts", keys: ["platform", "channel"],
                    numerator: "silent_loss", denominator: "accepted", units: "accepted_installations",
                    takesConfirmationWindow: true, causes: true)
            case .confirmedDeliveryDown:
                RateSource(
                    function: "pushledger_alert_delivery_counts", keys: ["platform", "channel"],
                    numerator: "confirmed", denominator: "accepted", units: "accepted_installations",
                    takesConfirmationWindow: true)
            case .rejectionsUp:
                RateSource(
                    function: "pushledger_alert_rejection_counts", keys: ["provider", "reason_class"],
                    numerator: "rejected", denominator: "sends", takesConfirmationWindow: false)
            case .optInDown:
                RateSource(
                    function: "pushledger_alert_opt_in_counts", keys: ["platform"],
                    numerator: "granted", denominator: "prompted", takesConfirmationWindow: false)
            case .ingestStale:
                nil
            }
        }

        /// The function called for [from, to) as of `at`.
        func call(from: Date, to: Date, at: Date, confirmationWindow: TimeSpan) -> SQL {
            let window: SQL =
                takesConfirmationWindow
                ? ", make_interval(secs => \(Double(confirmationWindow.seconds)))" : ""
            return "\(unsafeRaw: function)(\(from), \(to), \(at)\(window))"
        }
    }

    /// Every slice the rule sees in either window, judged.
    static func findings(
        for rule: AlertRule, at: Date, confirmationWindow: TimeSpan, connection: Connection
    ) throws(PostgresError) -> [AlertFinding] {
        guard let source = RateSource.of(rule.kind) else {
            return try staleness(rule: rule, at: at, connection: connection)
        }
        let windows = AlertWindows(rule: rule, at: at, confirmationWindow: confirmationWindow)
        let recent = source.call(
            from: windows.recentFrom, to: windows.recentTo, at: at, confirmationWindow: confirmationWindow)
        let baseline = source.call(
            from: windows.baselineFrom, to: windows.baselineTo, at: at, confirmationWindow: confirmationWindow)
        let keys = source.keys.joined(separator: ", ")
        let num = source.numerator, den = source.denominator, units = source.units ?? source.denominator
        let causeColumns =
            source.causes
            ? UnconfirmedCause.allCases.map {
                """
                coalesce(r.\($0.rawValue), 0) as current_\($0.rawValue), coalesce(b.\($0.rawValue), 0) as \
                baseline_\($0.rawValue), 
                """
            }.joined()
            : ""
        let rows = try connection.query(
            """
            select app_id, \(unsafeRaw: keys), \(unsafeRaw: causeColumns)
                   coalesce(r.\(unsafeRaw: num), 0) as current_numerator, coalesce(r.\(unsafeRaw: den), 0) as \
            current_denominator,
                   coalesce(b.\(unsafeRaw: num), 0) as baseline_numerator, coalesce(b.\(unsafeRaw: den), 0) as \
            baseline_denominator,
                   coalesce(r.\(unsafeRaw: units), 0) as current_units, coalesce(b.\(unsafeRaw: units), 0) as \
            baseline_units
              from \(recent) r
              full join \(baseline) b
             using (app_id, \(unsafeRaw: keys))
             order by app_id, \(unsafeRaw: keys)
            """)
        var findings: [AlertFinding] = []
        for row in rows {
            var slice: [String: String] = [:]
            for key in source.keys { slice[key] = try row.decode(key, as: String?.self) ?? "" }
            let observation = AlertObservation(
                rule: rule.kind, appID: try row.decode("app_id"), slice: AlertSlice(slice),
                current: Rate(try row.decode("current_numerator"), of: try row.decode("current_denominator")),
                baseline: Rate(try row.decode("baseline_numerator"), of: try row.decode("baseline_denominator")),
                units: source.units == nil ? nil : (try row.decode("current_units"), try row.decode("baseline_units")))
            var finding = AlertEvaluator.evaluate(observation, rule: rule, windows: windows)
            if source.causes {
                func counts(_ window: String, accepted: Int) throws(PostgresError) -> CauseCounts {
                    var counts = CauseCounts(accepted: accepted)
                    for cause in UnconfirmedCause.allCases {
                        counts.causes[cause] = try row.decode("\(window)_\(cause.rawValue)", as: Int.self)
                    }
                    return counts
                }
                finding.causeMove = CauseMove(
                    current: try counts("current", accepted: observation.current.denominator),
                    baseline: try counts("baseline", accepted: observation.baseline.denominator))
            }
            findings.append(finding)
        }
        return findings
    }

    private static func staleness(
        rule: AlertRule, at: Date, connection: Connection
    ) throws(PostgresError) -> [AlertFinding] {
        let rows = try connection.query(
            """
            select app_id, latest_received_at
              from pushledger_alert_latest_telemetry(\(at), make_interval(secs => \(Double(rule.retireAfter.seconds))))
             order by app_id
            """)
        var findings: [AlertFinding] = []
        for row in rows {
            let latest: Date? = try row.decode("latest_received_at")
            if let finding = AlertEvaluator.staleness(
                appID: try row.decode("app_id"), latest: latest, rule: rule, at: at)
            {
                findings.append(finding)
            }
        }
        return findings
    }
}
