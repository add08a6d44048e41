import PushLedgerContract

/// Whether a send can confirm, and whether it is a notification (metrics.md "Which sends can
/// confirm"): the one table in Swift. SQL's is `pushledger_send_can_confirm` with
/// `pushledger_send_is_notification` (sql/engine/outcome.sql); the rulebook's `confirmability`
/// rows hold the two equal.
public struct Confirmability: Sendable, Hashable {
    /// Whether app code runs on arrival and can record `notification_received`.
    public enum CanConfirm: String, Sendable, Hashable, CaseIterable, Codable {
        case yes, no
        /// An APNs background push: yes while its slice reports background receipts.
        case background
    }

    public var canConfirm: CanConfirm
    /// Rules 5–6 (blocked by the app's or the channel's setting) apply only to notifications.
    public var isNotification: Bool

    /// A v1.2 send, or one whose fields say nothing that changes it: can confirm, a notification.
    public static let ordinary = Confirmability(canConfirm: .yes, isNotification: true)

    public init(canConfirm: CanConfirm, isNotification: Bool) {
        self.canConfirm = canConfirm
        self.isNotification = isNotification
    }

    /// APNs push types that are not notifications and that no app code sees on arrival.
    static let silentPushTypes: Set<String> = [
        "location", "complication", "fileprovider", "mdm", "pushtotalk", "widgets",
    ]

    /// The send's row of the table. `pushType` and `mutableContent` are read for APNs,
    /// `messageKind` for FCM; absent fields judge the send as in v1.2.
    public init(provider: PushProvider, pushType: String?, mutableContent: Bool?, messageKind: MessageKind?) {
        switch provider {
        case .apns:
            switch pushType {
            case "background": self.init(canConfirm: .background, isNotification: false)
            case "voip": self.init(canConfirm: .yes, isNotification: false)
            case "liveactivity": self.init(canConfirm: .no, isNotification: true)
            case let type? where Self.silentPushTypes.contains(type): self.init(canConfirm: .no, isNotification: false)
            default: self.init(canConfirm: mutableContent == false ? .no : .yes, isNotification: true)
            }
        case .fcm:
            switch messageKind {
            case .notification?, .hybrid?: self.init(canConfirm: .no, isNotification: true)
            case .data?, nil: self = .ordinary
            }
        case .webpush:
            // The service worker's push event runs for every web push.
            self = .ordinary
        }
    }

    /// Whether the send could have confirmed, given whether its slice reports background receipts.
    public func canConfirm(backgroundInstrumented: Bool) -> Bool {
        switch canConfirm {
        case .yes: true
        case .no: false
        case .background: backgroundInstrumented
        }
    }
}
