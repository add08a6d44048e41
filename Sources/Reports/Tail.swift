import Foundation
import Postgres
import PushLedgerContract
import PushLedgerSupport

/// One event as `pushledger tail` shows it: accepted (stored) or rejected (failed-event store).
public struct TailLine: Sendable, Equatable {
    public var receivedAt: Date
    /// The event id of a stored event, `failed:<id>` of a failed-event row: unique per line.
    public var key: String
    /// `accepted` or `rejected`.
    public var result: String
    /// The contract's event type, `send`, or `event` / `request` when a rejected one had none.
    public var type: String
    public var installationID: String?
    public var eventID: String?
    public var detail: String
    public var errorCode: String?
    public var message: String?

    /// `09:00:05.120 accepted notification_received id=c2b0b6a4 inst=7f1c6a0e notification=…`:
    /// ids shortened to 8 characters, a rejection's code and message last. What a device sent
    /// (a malformed event id, a channel, a message quoting it) shows its control and format
    /// characters as `\u{…}`: a terminal never runs an escape sequence from the wire.
    public var text: String {
        func shown(_ text: String) -> String { StorageRules.printable(text, maxScalars: 4096) }
        let time = RFC3339.format(receivedAt).dropFirst(11).prefix(12)
        var parts = [
            String(time), result.padding(toLength: 8, withPad: " ", startingAt: 0),
            shown(type).padding(toLength: 21, withPad: " ", startingAt: 0),
            "id=" + (eventID.map { shown(String($0.prefix(8))) } ?? "-"),
            "inst=" + (installationID.map { String($0.prefix(8)) } ?? "-"),
        ]
        if !detail.isEmpty { parts.append(shown(detail)) }
        if let errorCode { parts.append("error=\(shown(errorCode))") }
        if let message { parts.append("\"\(shown(message))\"") }
        return parts.joined(separator: " ")
    }
}

/// Follows what arrives for an app (`pushledger tail`). Each poll reads events received since
/// the newest one seen minus `overlap`, and drops the ones already shown: an event committed
/// late (a slow ingestor, a long transaction, clocks of several ingestors apart by less than
/// the overlap) still shows up once, without a sequence every ingestor would have to share.
public struct TailFollower {
    public var app: String
    public var installationID: String?
    public var type: String?
    public var overlap: TimeInterval = 60
    private var cursor: Date
    private var shown: [String: Date] = [:]

    /// Follows events received from `since` on.
    public init(app: String, installationID: String? = nil, type: String? = nil, since: Date) {
        self.app = app
        self.installationID = installationID?.lowercased()
        self.type = type
        cursor = since
    }

    /// The lines not shown yet, oldest first.
    public mutating func poll(_ connection: Connection) throws -> [TailLine] {
        let rows = try connection.query(
            """
            select received_at, key, result, type, installation_id::text, event_id, detail, error_code, message
              from pushledger_tail(\(app), \(cursor.addingTimeInterval(-overlap)))
             where (\(installationID)::text is null or installation_id::text = \(installationID))
               and (\(type)::text is null or type = \(type))
             order by received_at, key
            """)
        var lines: [TailLine] = []
        for row in rows {
            let line = TailLine(
                receivedAt: try row.decode("received_at", as: Date.self), key: try row.decode("key", as: String.self),
                result: try row.decode("result", as: String.self), type: try row.decode("type", as: String.self),
                installationID: try row.decode("installation_id", as: String?.self),
                eventID: try row.decode("event_id", as: String?.self),
                detail: try row.decode("detail", as: String?.self) ?? "",
                errorCode: try row.decode("error_code", as: String?.self),
                message: try row.decode("message", as: String?.self))
            guard shown[line.key] == nil else { continue }
            shown[line.key] = line.receivedAt
            cursor = max(cursor, line.receivedAt)
            lines.append(line)
        }
        // Keys older than the overlap can no longer come back.
        let horizon = cursor.addingTimeInterval(-overlap)
        shown = shown.filter { $0.value >= horizon }
        return lines
    }
}
