/// The outcome counters: the thirteen counts every outcome report and every daily rollup row
/// carries (metrics.md "Outcome of one send attempt", "Rates"), in report order: the outcome
/// family of the counter catalog (``RollupCatalog``; SQL's is `pushledger_rollup_catalog()`
/// with `pushledger_counts_in`, sql/engine/outcome_counters.sql). OutcomeCounterTests and
/// RollupCatalogTests hold the two equal.
public enum OutcomeCounter: String, Sendable, CaseIterable {
    case sends, accepted, rejected, pending, opened, received
    case blockedApp = "blocked_app", blockedChannel = "blocked_channel"
    case unconfirmed, unattributed, unconfirmable
    case tokenInvalid = "token_invalid", toInvalidToken = "to_invalid_token"

    /// The counter that counts the sends with `outcome` (every outcome has one).
    public init(_ outcome: SendOutcome) {
        switch outcome {
        case .rejected: self = .rejected
        case .pending: self = .pending
        case .opened: self = .opened
        case .received: self = .received
        case .blockedApp: self = .blockedApp
        case .blockedChannel: self = .blockedChannel
        case .unconfirmed: self = .unconfirmed
        case .unattributed: self = .unattributed
        case .unconfirmable: self = .unconfirmable
        }
    }

    /// Whether a send with `outcome` and these token flags counts in this counter: what each
    /// counter means (as `pushledger_counts_in` in SQL).
    public func counts(_ outcome: SendOutcome, tokenInvalid: Bool, toInvalidToken: Bool) -> Bool {
        switch self {
        case .sends: true
        // Accepted: a 2xx the provider took that is past its confirmation window.
        case .accepted: outcome != .rejected && outcome != .pending
        case .tokenInvalid: tokenInvalid
        case .toInvalidToken: toInvalidToken
        case .rejected, .pending, .opened, .received, .blockedApp, .blockedChannel, .unconfirmed, .unattributed,
            .unconfirmable:
            Self(outcome) == self
        }
    }

    /// Shown in the reports' count columns and JSON; to_invalid_token is read, but reported
    /// apart (as a cause of rejections, not a count beside the outcomes).
    public var isReported: Bool { self != .toInvalidToken }

    /// The counters `pushledger_rates` reads (group rate_input of the SQL catalog), in its
    /// parameters' order.
    public static let rateInputs: [OutcomeCounter] = [
        .sends, .accepted, .rejected, .opened, .received, .blockedApp, .blockedChannel, .unconfirmed, .tokenInvalid,
        .unconfirmable,
    ]

    /// The counters' column names, comma-separated in order: what a query over the rollups or
    /// the report functions selects.
    public static let columnList = allCases.map(\.rawValue).joined(separator: ", ")
}
