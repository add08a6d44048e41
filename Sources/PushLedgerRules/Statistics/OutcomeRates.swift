/// The rates of docs/metrics.md "Rates" of one set of outcome counts, in report order. Reports
/// read them from SQL (`pushledger_rates`, sql/views/rates.sql, the one definition the alerts and
/// dashboards read too);
/// ``init(sends:accepted:rejected:opened:received:blockedApp:blockedChannel:unconfirmed:unconfirmable:tokenInvalid:)``
/// is the Swift definition for callers without a database, held equal to SQL by RatesTests.
public struct OutcomeRates: Sendable, Hashable {
    /// The rates with their SQL and JSON names, in report order.
    public enum Name: String, Sendable, CaseIterable {
        case silentLossRate = "silent_loss_rate", knownBlockedRate = "known_blocked_rate"
        case unconfirmedRate = "unconfirmed_rate", confirmedDeliveryRate = "confirmed_delivery_rate"
        case openRate = "open_rate", openRateOfReceived = "open_rate_of_received"
        case rejectionRate = "rejection_rate", tokenInvalidRate = "token_invalid_rate"
        /// The share of accepted sends that could not have confirmed (which sends can confirm).
        case unconfirmableRate = "unconfirmable_rate"
    }

    private var rates: [Name: Rate]

    /// Rates as given, e.g. read from a row of SQL: `rate(name)` for every name.
    public init<E: Error>(reading rate: (Name) throws(E) -> Rate) throws(E) {
        var rates: [Name: Rate] = [:]
        for name in Name.allCases { rates[name] = try rate(name) }
        self.rates = rates
    }

    /// The rates of these counts, computed in Swift (`accepted` is 2xx and not pending). Sends that
    /// cannot confirm leave the denominators of the rates that need a confirmation.
    public init(
        sends: Int, accepted: Int, rejected: Int, opened: Int, received: Int, blockedApp: Int, blockedChannel: Int,
        unconfirmed: Int, unconfirmable: Int, tokenInvalid: Int
    ) {
        let couldConfirm = accepted - unconfirmable
        self.init { (name: Name) -> Rate in
            switch name {
            case .silentLossRate: Rate(blockedApp + blockedChannel + unconfirmed, of: couldConfirm)
            case .knownBlockedRate: Rate(blockedApp + blockedChannel, of: accepted)
            case .unconfirmedRate: Rate(unconfirmed, of: couldConfirm)
            case .confirmedDeliveryRate: Rate(received + opened, of: couldConfirm)
            case .openRate: Rate(opened, of: accepted)
            case .openRateOfReceived: Rate(opened, of: received + opened)
            case .rejectionRate: Rate(rejected, of: sends)
            case .tokenInvalidRate: Rate(tokenInvalid, of: sends)
            case .unconfirmableRate: Rate(unconfirmable, of: accepted)
            }
        }
    }

    public subscript(name: Name) -> Rate { rates[name]! }

    /// The rates in report order with their names.
    public var named: [(name: String, rate: Rate)] { Name.allCases.map { ($0.rawValue, self[$0]) } }
}
