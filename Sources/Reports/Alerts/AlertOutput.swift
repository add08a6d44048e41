import Foundation
import PushLedgerSupport
import TableRendering

/// Output formats of `pushledger alert check` and `alert list`.
public enum AlertOutputFormat: String, Sendable, CaseIterable {
    case text
    case json
}

/// Renders check results and alert history for stdout.
public enum AlertOutput {
    /// `alert check`: the firing alerts (each with figures and the command to investigate) and
    /// the transitions this check recorded. Ends with a newline; in text every line fits
    /// ``Table/terminalWidth`` (a message goes on over indented lines).
    public static func render(_ result: AlertCheckResult, format: AlertOutputFormat) -> String {
        let firing = result.firing.map { AlertRecord($0, state: .firing, at: result.at) }
        let changes = result.transitions.map(AlertRecord.init)
        switch format {
        case .json:
            return AlertRecord.json(
                CheckDocument(
                    at: Timestamp.rfc3339(result.at), exitStatus: Int(result.exitStatus.rawValue),
                    firing: firing, transitions: changes)) + "\n"
        case .text:
            let opened = result.transitions.filter { $0.state == .firing }.count
            var lines = [
                "alert check at \(Timestamp.rfc3339(result.at)): \(firing.count) firing, "
                    + "\(opened) newly firing, \(result.transitions.count - opened) resolved"
            ]
            lines += firing.map(\.transition.message)
            lines += result.transitions.filter { $0.state == .resolved }.map(\.message)
            return lines.map { Table.wrap($0) }.joined(separator: "\n") + "\n"
        }
    }

    /// `alert list`: transitions oldest first, one line each in text.
    public static func render(history: [AlertTransition], format: AlertOutputFormat) -> String {
        switch format {
        case .json:
            return AlertRecord.json(["transitions": history.map(AlertRecord.init)]) + "\n"
        case .text:
            guard !history.isEmpty else { return "no alert transitions\n" }
            return history.map { Table.wrap("\(Timestamp.rfc3339($0.at)) #\($0.id) \($0.message)") }.joined(
                separator: "\n") + "\n"
        }
    }

    private struct CheckDocument: Encodable {
        var at: String
        var exitStatus: Int
        var firing: [AlertRecord]
        var transitions: [AlertRecord]

        enum CodingKeys: String, CodingKey {
            case at, exitStatus = "exit_status", firing, transitions
        }
    }
}
