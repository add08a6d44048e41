import OutcomeEngine
import Postgres
import PushLedgerRules
import PushLedgerSupport

/// Why a slice's unconfirmed sends went unconfirmed and how late its received and opened ones
/// came (docs/metrics.md "Why a send is unconfirmed", "Delivery latency"): the cause and latency
/// bucket counts as the report's SQL returns them, and their figures.
public struct CauseCounts: Sendable, Equatable {
    public var causes: [UnconfirmedCause: Int] = [:]
    public var latency: [LatencyBucket: Int] = [:]
    /// The slice's `accepted`: the cause rates' denominator.
    public var accepted = 0

    public init(causes: [UnconfirmedCause: Int] = [:], latency: [LatencyBucket: Int] = [:], accepted: Int = 0) {
        self.causes = causes
        self.latency = latency
        self.accepted = accepted
    }

    /// Reads the columns `superseded` … `unexplained` and `latency_lt_10s` … `latency_ge_24h`.
    init(row: Row, accepted: Int) throws(PostgresError) {
        self.accepted = accepted
        for cause in UnconfirmedCause.allCases { causes[cause] = try row.decode(cause.rawValue, as: Int.self) }
        for bucket in LatencyBucket.allCases { latency[bucket] = try row.decode(Self.column(bucket), as: Int.self) }
    }

    /// The SQL and JSON name of a bucket's count: `latency_lt_10s`.
    public static func column(_ bucket: LatencyBucket) -> String { RollupCatalog.column(bucket) }

    /// The count columns, for a query's select list.
    static var sqlColumns: String { sqlColumnNames.joined(separator: ", ") }

    /// The count columns' names: the causes, then the latency buckets.
    static var sqlColumnNames: [String] {
        UnconfirmedCause.allCases.map(\.rawValue) + LatencyBucket.allCases.map(column)
    }

    public func count(_ cause: UnconfirmedCause) -> Int { causes[cause] ?? 0 }
    public func count(_ bucket: LatencyBucket) -> Int { latency[bucket] ?? 0 }

    /// A cause's count over `accepted`.
    public func rate(_ cause: UnconfirmedCause) -> Rate { Rate(count(cause), of: accepted) }

    /// Received and opened sends: the latency figures' n.
    public var confirmed: Int { LatencyBucket.allCases.reduce(0) { $0 + count($1) } }

    /// Sends an hour or more late over received and opened ones.
    public var lateShare: Rate {
        Rate(LatencyBucket.allCases.filter(\.isLate).reduce(0) { $0 + count($1) }, of: confirmed)
    }

    /// The bucket holding the nearest-rank percentile, nil without a received or opened send.
    public func percentileBucket(perMille: Int) -> LatencyBucket? {
        LatencyBucket.percentile(perMille: perMille, counts: latency)
    }

    /// The percentiles reported, with their names.
    static let percentiles = [("p50_bucket", 500), ("p90_bucket", 900), ("p99_bucket", 990)]

    /// The cause whose rate (of accepted) moved most since `previous`, either way, with the change
    /// in percentage points; nil when no cause rate is defined in both or none moved. Ties go to
    /// the earlier rule.
    public func mostMoved(since previous: CauseCounts) -> (cause: UnconfirmedCause, points: Double)? {
        var best: (cause: UnconfirmedCause, points: Double)?
        for cause in UnconfirmedCause.allCases {
            guard let c = rate(cause).value, let p = previous.rate(cause).value else { continue }
            let points = (c - p) * 100
            if points != 0, best.map({ abs(points) > abs($0.points) }) ?? true { best = (cause, points) }
        }
        return best
    }

    /// Sums of two slices.
    public static func + (a: CauseCounts, b: CauseCounts) -> CauseCounts {
        CauseCounts(
            causes: a.causes.merging(b.causes, uniquingKeysWith: +),
            latency: a.latency.merging(b.latency, uniquingKeysWith: +),
            accepted: a.accepted + b.accepted)
    }

    /// The flat fields of a silent-loss row, in order: counts, rates (`<cause>_rate`), latency
    /// bucket counts, `late_share`, the percentile buckets.
    public var namedCounts: [(name: String, count: Int)] {
        UnconfirmedCause.allCases.map { ($0.rawValue, count($0)) }
            + LatencyBucket.allCases.map { (Self.column($0), count($0)) }
    }
    public var namedRates: [(name: String, rate: Rate)] {
        UnconfirmedCause.allCases.map { ($0.rawValue + "_rate", rate($0)) } + [("late_share", lateShare)]
    }
    public var namedBuckets: [(name: String, bucket: LatencyBucket?)] {
        Self.percentiles.map { ($0.0, percentileBucket(perMille: $0.1)) }
    }

    /// Every field name, in order (the table's and CSV's columns).
    static var fieldNames: [String] {
        let none = CauseCounts()
        return none.namedCounts.map(\.name) + none.namedRates.map(\.name) + none.namedBuckets.map(\.name)
    }

    var jsonFields: [(String, JSONValue)] {
        namedCounts.map { ($0.name, .int($0.count)) } + namedRates.map { ($0.name, .number($0.rate.value)) }
            + namedBuckets.map { ($0.name, .text($0.bucket?.rawValue)) }
    }
}
