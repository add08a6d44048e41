import Postgres
import PushLedgerSupport
import PushLedgerRules

/// Outcome counts of a set of send attempts and the rates of docs/metrics.md "Rates": the Swift
/// reading of `pushledger_rates` (sql/views/rates.sql), held equal to it by RatesTests.
public struct OutcomeCounts: Sendable, Equatable {
    public var sends = 0
    /// 2xx and not pending.
    public var accepted = 0
    public var rejected = 0
    public var pending = 0
    public var opened = 0
    public var received = 0
    public var blockedApp = 0
    public var blockedChannel = 0
    public var unconfirmed = 0
    public var unattributed = 0
    public var tokenInvalid = 0
    /// Sends to a token already known invalid at send time.
    public var toInvalidToken = 0

    public init() {}

    /// Reads the count columns every outcome query returns (sends … to_invalid_token).
    init(row: Row) throws(PostgresError) {
        sends = try row.decode("sends")
        accepted = try row.decode("accepted")
        rejected = try row.decode("rejected")
        pending = try row.decode("pending")
        opened = try row.decode("opened")
        received = try row.decode("received")
        blockedApp = try row.decode("blocked_app")
        blockedChannel = try row.decode("blocked_channel")
        unconfirmed = try row.decode("unconfirmed")
        unattributed = try row.decode("unattributed")
        tokenInvalid = try row.decode("token_invalid")
        toInvalidToken = try row.decode("to_invalid_token")
    }

    /// The sends with `outcome`.
    public func count(of outcome: SendOutcome) -> Int {
        switch outcome {
        case .rejected: rejected
        case .opened: opened
        case .received: received
        case .pending: pending
        case .blockedApp: blockedApp
        case .blockedChannel: blockedChannel
        case .unattributed: unattributed
        case .unconfirmed: unconfirmed
        }
    }

    /// The outcomes that lose a send without the sender seeing an error (``SendOutcome/isSilentLoss``).
    public var silentLoss: Int { SendOutcome.allCases.filter(\.isSilentLoss).map(count(of:)).reduce(0, +) }

    public var silentLossRate: Rate { Rate(silentLoss, of: accepted) }
    public var knownBlockedRate: Rate { Rate(blockedApp + blockedChannel, of: accepted) }
    public var unconfirmedRate: Rate { Rate(unconfirmed, of: accepted) }
    public var confirmedDeliveryRate: Rate { Rate(received + opened, of: accepted) }
    public var openRate: Rate { Rate(opened, of: accepted) }
    public var openRateOfReceived: Rate { Rate(opened, of: received + opened) }
    public var rejectionRate: Rate { Rate(rejected, of: sends) }
    public var tokenInvalidRate: Rate { Rate(tokenInvalid, of: sends) }

    /// The rates in the order of the silent-loss JSON, with their JSON names.
    public var namedRates: [(name: String, rate: Rate)] {
        [
            ("silent_loss_rate", silentLossRate), ("known_blocked_rate", knownBlockedRate),
            ("unconfirmed_rate", unconfirmedRate), ("confirmed_delivery_rate", confirmedDeliveryRate),
            ("open_rate", openRate), ("open_rate_of_received", openRateOfReceived),
            ("rejection_rate", rejectionRate), ("token_invalid_rate", tokenInvalidRate),
        ]
    }

    /// The counts in the order of the silent-loss JSON, with their JSON names.
    public var namedCounts: [(name: String, count: Int)] {
        [
            ("sends", sends), ("accepted", accepted), ("rejected", rejected), ("pending", pending),
            ("opened", opened), ("received", received), ("blocked_app", blockedApp),
            ("blocked_channel", blockedChannel), ("unconfirmed", unconfirmed), ("unattributed", unattributed),
            ("token_invalid", tokenInvalid),
        ]
    }

    /// Names of the rates whose denominator is under 30.
    public var lowVolumeRates: [String] { namedRates.filter { $0.rate.isLowVolume }.map(\.name) }

    /// The counts, the rates (null when undefined) and `low_volume`, as JSON fields.
    var jsonFields: [(String, JSONValue)] {
        namedCounts.map { ($0.name, .int($0.count)) }
            + namedRates.map { ($0.name, .number($0.rate.value)) }
            + [("low_volume", .array(lowVolumeRates.map(JSONValue.string)))]
    }
}
