import OutcomeEngine
import Postgres
import PushLedgerRules
import PushLedgerSupport

/// Outcome counts of a set of send attempts and their rates of docs/metrics.md "Rates", both as
/// the report's SQL returns them: the rates are `pushledger_rates` (sql/views/rates.sql), read
/// beside the counts (``withRates(_:)``).
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
    /// Accepted sends that could not have confirmed (metrics.md "Which sends can confirm").
    public var unconfirmable = 0
    public var tokenInvalid = 0
    /// Sends to a token already known invalid at send time.
    public var toInvalidToken = 0
    /// The rates of these counts: read from SQL, or computed in Swift by ``withRatesOfCounts()``.
    public var rates: OutcomeRates
    /// Causes and latency (v1.2), where the query returned them.
    public var causes: CauseCounts?

    /// No sends, and the rates of no sends.
    public init() {
        rates = OutcomeRates(
            sends: 0, accepted: 0, rejected: 0, opened: 0, received: 0, blockedApp: 0, blockedChannel: 0,
            unconfirmed: 0, unconfirmable: 0, tokenInvalid: 0)
    }

    /// These counts with their rates computed in Swift (``OutcomeRates``), for counts tallied
    /// without a database.
    public func withRatesOfCounts() -> OutcomeCounts {
        var counts = self
        counts.rates = OutcomeRates(
            sends: sends, accepted: accepted, rejected: rejected, opened: opened, received: received,
            blockedApp: blockedApp, blockedChannel: blockedChannel, unconfirmed: unconfirmed,
            unconfirmable: unconfirmable, tokenInvalid: tokenInvalid)
        return counts
    }

    /// `query` (a query returning the count columns) with the rate columns of `pushledger_rates`
    /// beside each row (`<rate>_numerator`, `<rate>_denominator`), in the query's order.
    static func withRates(_ query: SQL) -> SQL {
        """
        select q.*, r.*
          from (\(query)) q
         cross join lateral pushledger_rate_columns(\(unsafeRaw: rateArguments)) r
        """
    }

    /// The counters `pushledger_rates` reads, passed by name from the query's columns.
    private static let rateArguments = OutcomeCounter.rateInputs.map { "p_\($0.rawValue) => q.\($0.rawValue)" }
        .joined(separator: ", ")

    /// Reads the count columns every outcome query returns (``OutcomeCounter``, ``sqlColumns``)
    /// and the rate columns ``withRates(_:)`` adds.
    init(row: Row, causes withCauses: Bool = false) throws(PostgresError) {
        rates = try OutcomeRates { (name: OutcomeRates.Name) throws(PostgresError) -> Rate in
            Rate(try row.decode("\(name.rawValue)_numerator"), of: try row.decode("\(name.rawValue)_denominator"))
        }
        for counter in OutcomeCounter.allCases { self[counter] = try row.decode(counter.rawValue) }
        if withCauses { causes = try CauseCounts(row: row, accepted: accepted) }
    }

    /// The sends with `outcome`.
    public func count(of outcome: SendOutcome) -> Int { self[OutcomeCounter(outcome)] }

    /// One counter's count.
    public subscript(counter: OutcomeCounter) -> Int {
        get { self[keyPath: Self.property(of: counter)] }
        set { self[keyPath: Self.property(of: counter)] = newValue }
    }

    /// The one place a counter's name meets its property.
    private static func property(of counter: OutcomeCounter) -> WritableKeyPath<OutcomeCounts, Int> {
        switch counter {
        case .sends: \.sends
        case .accepted: \.accepted
        case .rejected: \.rejected
        case .pending: \.pending
        case .opened: \.opened
        case .received: \.received
        case .blockedApp: \.blockedApp
        case .blockedChannel: \.blockedChannel
        case .unconfirmed: \.unconfirmed
        case .unattributed: \.unattributed
        case .unconfirmable: \.unconfirmable
        case .tokenInvalid: \.tokenInvalid
        case .toInvalidToken: \.toInvalidToken
        }
    }

    /// Counts one send with `outcome` and these token flags in every counter it counts in
    /// (``OutcomeCounter/counts(_:tokenInvalid:toInvalidToken:)``); the rates are not updated.
    public mutating func add(_ outcome: SendOutcome, tokenInvalid: Bool, toInvalidToken: Bool) {
        for counter in OutcomeCounter.allCases
        where counter.counts(outcome, tokenInvalid: tokenInvalid, toInvalidToken: toInvalidToken) {
            self[counter] += 1
        }
    }

    /// The counters' columns, for a query selecting what ``init(row:causes:)`` reads.
    static let sqlColumns = OutcomeCounter.columnList

    /// Every count column an outcome query with causes returns (``sqlColumns``, then
    /// ``CauseCounts/sqlColumns``): what a fleet-wide read sums per slice.
    static var summedColumns: [String] { OutcomeCounter.allCases.map(\.rawValue) + CauseCounts.sqlColumnNames }

    public var silentLossRate: Rate { rates[.silentLossRate] }
    public var knownBlockedRate: Rate { rates[.knownBlockedRate] }
    public var unconfirmedRate: Rate { rates[.unconfirmedRate] }
    public var confirmedDeliveryRate: Rate { rates[.confirmedDeliveryRate] }
    public var openRate: Rate { rates[.openRate] }

    /// The rates in the order of the silent-loss JSON, with their JSON names.
    public var namedRates: [(name: String, rate: Rate)] { rates.named }

    /// The counts in the order of the silent-loss JSON, with their JSON names.
    public var namedCounts: [(name: String, count: Int)] {
        OutcomeCounter.allCases.filter(\.isReported).map { ($0.rawValue, self[$0]) }
    }

    /// Names of the rates whose denominator is under 30.
    public var lowVolumeRates: [String] {
        (namedRates + (causes?.namedRates ?? [])).filter { $0.rate.isLowVolume }.map(\.name)
    }

    /// The counts, the rates (null when undefined) and `low_volume`, as JSON fields.
    var jsonFields: [(String, JSONValue)] {
        namedCounts.map { ($0.name, .int($0.count)) }
            + namedRates.map { ($0.name, .number($0.rate.value)) }
            + (causes?.jsonFields ?? [])
            + [("low_volume", .array(lowVolumeRates.map(JSONValue.string)))]
    }
}
