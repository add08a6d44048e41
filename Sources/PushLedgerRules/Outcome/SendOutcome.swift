import Foundation
import PushLedgerSupport

/// The outcome of one send attempt (metrics.md, "Outcome of one send attempt").
public enum SendOutcome: String, Sendable, CaseIterable, Codable, Comparable {
    case rejected, opened, received, pending
    case blockedApp = "blocked_app", blockedChannel = "blocked_channel"
    case unattributed, unconfirmed
    /// Accepted, no receipt, not blocked, and the send could not have confirmed (rule 7½):
    /// neither silent nor of unknown state.
    case unconfirmable

    /// Lost without the sender seeing an error.
    public var isSilentLoss: Bool { self == .blockedApp || self == .blockedChannel || self == .unconfirmed }

    public static func < (lhs: SendOutcome, rhs: SendOutcome) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One receipt of a send: a `notification_received` or `notification_opened` with its
/// notification_id, at its corrected time.
public struct Receipt: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case opened
        /// `displayed` as reported: `false` proves delivery, not display.
        case received(displayed: Bool?)
    }
    public var kind: Kind
    public var at: Date
    public init(kind: Kind, at: Date) {
        self.kind = kind
        self.at = at
    }
}

/// The outcome rules 1–9 of metrics.md with rule 7½ (which sends can confirm), applied in
/// order; the truth the SQL engine must match.
public enum OutcomeRules {
    /// Default confirmation window: a send younger than this without receipts is `pending`
    /// (metrics.md; the SQL engine's `p_window` default says the same in SQL).
    public static let defaultConfirmationSpan = TimeSpan.hours(24)
    /// ``defaultConfirmationSpan`` in seconds, for `Date` arithmetic.
    public static var defaultConfirmationWindow: TimeInterval { defaultConfirmationSpan.timeInterval }

    /// Classifies one attempt.
    /// - Parameters:
    ///   - status: provider HTTP status (0 = no response).
    ///   - state: the installation's display state as of `sentAt`; nil when unknown (no
    ///     snapshot yet, or the installation can't be resolved from the token).
    ///   - receipts: receipts with this send's notification_id, any time; those after `asOf` are ignored.
    ///   - instrumented: receipts are instrumented for the send's slice in the report window.
    ///   - confirmability: whether the send can confirm and is a notification (``Confirmability``).
    ///   - backgroundInstrumented: the slice reported a background push's receipt in the window.
    public static func classify(
        status: Int, sentAt: Date, channel: String, state: DisplayState?, receipts: [Receipt],
        instrumented: Bool, asOf: Date, confirmationWindow: TimeInterval = defaultConfirmationWindow,
        confirmability: Confirmability = .ordinary, backgroundInstrumented: Bool = true
    ) -> SendOutcome {
        if !(200...299).contains(status) { return .rejected }
        var opened = false, receivedShown = false, receivedHidden = false
        for receipt in receipts where receipt.at <= asOf {
            switch receipt.kind {
            case .opened: opened = true
            case .received(let displayed): if displayed == false { receivedHidden = true } else { receivedShown = true }
            }
        }
        if opened { return .opened }
        if receivedShown { return .received }
        if !receivedHidden && sentAt > asOf.addingTimeInterval(-confirmationWindow) { return .pending }
        if confirmability.isNotification, let state {
            if !state.canDisplay { return .blockedApp }
            if state.isBlocked(channel: channel) { return .blockedChannel }
        }
        if receivedHidden { return .received }
        if !confirmability.canConfirm(backgroundInstrumented: backgroundInstrumented) { return .unconfirmable }
        if state == nil || !instrumented { return .unattributed }
        return .unconfirmed
    }
}
