import Foundation
import PushLedgerContract
import PushLedgerSupport

/// Whether an alert is firing or has resolved.
public enum AlertState: String, Sendable, Hashable, Codable {
    case firing
    case resolved
}

/// The human sentences of alerts: what moved, by how much, how sure, and the command that
/// shows the slice in detail.
public enum AlertText {
    /// One line, e.g. `FIRING silent_loss_up com.example.shop platform=android channel=promotions:
    /// silent_loss_rate 12.30% (123/1000 accepted) vs baseline 4.50% (315/7000), +7.80 pp, p=1.2e-30.
    /// Investigate: pushledger report silent-loss …`.
    public static func message(_ finding: AlertFinding, state: AlertState) -> String {
        // Channel names come from devices: control and format characters shown as `\u{…}`.
        let subject = [state.rawValue.uppercased(), finding.rule.rawValue, finding.appID, finding.slice.label]
            .filter { !$0.isEmpty }.map { StorageRules.printable($0, maxScalars: 512) }.joined(separator: " ")
        return "\(subject): \(figures(finding)). Investigate: \(investigate(finding))"
    }

    /// The figures of a finding, without the subject.
    public static func figures(_ finding: AlertFinding) -> String {
        if finding.rule == .ingestStale {
            let age = finding.currentValue.map { "\(Int($0.rounded(.down))) min" } ?? "unknown"
            let threshold = finding.baselineValue.map { "\(Int($0)) min" } ?? "?"
            let latest = finding.latestTelemetry.map(Timestamp.rfc3339) ?? "none"
            return "latest telemetry received \(latest), \(age) ago (threshold \(threshold))"
        }
        let volume = finding.rule.volumeName
        let current = rate(finding.currentValue, finding.currentVolume, volume)
        let baseline = rate(finding.baselineValue, finding.baselineVolume, volume)
        var text = "\(finding.rule.rateName) \(current) vs baseline \(baseline)"
        if let delta = finding.deltaPoints { text += ", \(String(format: "%+.2f", delta)) pp" }
        if let p = finding.pValue { text += ", p=\(pValue(p))" }
        if let move = finding.causeMove {
            text +=
                "; cause moved most: \(move.cause.rawValue) "
                + String(
                    format: "%.2f%% vs %.2f%%, %+.2f pp", move.current * 100, move.baseline * 100, move.deltaPoints)
        }
        if let windows = finding.windows {
            text +=
                "; recent [\(Timestamp.rfc3339(windows.recentFrom)), \(Timestamp.rfc3339(windows.recentTo)))"
                + ", baseline from \(Timestamp.rfc3339(windows.baselineFrom))"
        }
        return text
    }

    /// The command that shows the finding's slice and recent window in detail.
    public static func investigate(_ finding: AlertFinding) -> String {
        let app = shellQuoted(finding.appID)
        guard let windows = finding.windows else {
            return "check the ingestor (GET /readyz, `pushledger serve` logs) and the app's telemetry SDK; "
                + "pushledger alert list --since \(finding.latestTelemetry.map(Timestamp.rfc3339) ?? "24h")"
        }
        let span = "--from \(Timestamp.rfc3339(windows.recentFrom)) --to \(Timestamp.rfc3339(windows.recentTo))"
        switch finding.rule {
        case .silentLossUp, .confirmedDeliveryDown, .ingestStale:
            return "pushledger report silent-loss --app \(app) \(span) --by platform,channel"
        case .rejectionsUp:
            return "pushledger report rejections --app \(app) \(span)"
        case .optInDown:
            return "pushledger report prompt-timing --app \(app) \(span) --as-treated"
        }
    }

    /// `12.30% (123/1000 accepted)`, or `n/a (0 accepted)`.
    static func rate(_ value: Double?, _ volume: Int?, _ volumeName: String) -> String {
        let denominator = volume ?? 0
        guard let value else { return "n/a (0 \(volumeName))" }
        let numerator = Int((value * Double(denominator)).rounded())
        return String(format: "%.2f%%", value * 100) + " (\(numerator)/\(denominator) \(volumeName))"
    }

    /// Two significant digits, e.g. `0.0042` or `1.2e-30`.
    static func pValue(_ p: Double) -> String {
        p >= 0.001 || p == 0 ? String(format: "%.2g", p) : String(format: "%.1e", p)
    }

    /// App ids are reverse-DNS names, but quote anything else a shell would read specially.
    /// Text for a Slack-compatible `text` field: `&`, `<` and `>` escaped as Slack asks, so a
    /// channel named `<!channel>` mentions no one and links nowhere.
    public static func slackEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    static func shellQuoted(_ text: String) -> String {
        let plain = text.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || "._-:/".unicodeScalars.contains($0)
        }
        return plain && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
