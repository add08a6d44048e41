import OutcomeEngine
import PushLedgerRules
import TableRendering

extension WeeklyReport {
    /// The sends of one kind (provider, push type, message kind) that could not confirm this
    /// week, and what the sender changes so that such sends can (metrics.md "Which sends can confirm").
    public struct CannotConfirmRow: Sendable, Equatable {
        public var provider: String
        public var pushType: String?
        public var messageKind: String?
        public var unconfirmable: Int

        /// The kind as the report names it: the push type of an APNs send, the message kind of an
        /// FCM one (the fields the rule reads for each).
        public var kind: String {
            let detail =
                provider == "apns" ? pushType.map { "push_type \($0)" } : messageKind.map { "message_kind \($0)" }
            return [provider, detail].compactMap { $0 }.joined(separator: ", ")
        }

        /// What makes such sends measurable.
        public var change: String {
            switch (provider, pushType, messageKind) {
            case ("apns", "background", _):
                "record background receipts in the app (PushLedgerKit's recordBackgroundReceipt)"
            case ("apns", nil, _), ("apns", "alert", _):
                "send mutable-content: 1 and record the receipt in a Notification Service Extension"
            case ("apns", _, _):
                "no app code runs on arrival: only a tap confirms these"
            case ("fcm", _, _):
                "send data messages and post the notification from the app (onMessageReceived)"
            default:
                "report receipts from the app"
            }
        }
    }

    /// The kinds as a table; what to change for each as notes, so that no terminal width cuts it.
    var cannotConfirmTable: ReportTable {
        let total = headline.current.accepted
        return ReportTable(
            title: "Cannot confirm",
            columns: ["kind", "unconfirmable", "of accepted"],
            rows: cannotConfirm.map { row in
                [.text(row.kind), .integer(row.unconfirmable), Display.rate(Rate(row.unconfirmable, of: total))]
            },
            notes: cannotConfirm.isEmpty
                ? ["every accepted send this week could confirm"]
                : [
                    """
                    unconfirmable sends are left out of silent loss and confirmed delivery: nothing but a tap \
                    could have confirmed them. To measure them:
                    """
                ] + cannotConfirm.map { "\($0.kind): \($0.change)" })
    }
}
