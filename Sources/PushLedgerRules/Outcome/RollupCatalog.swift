/// The counter catalog in Swift: every count a daily rollup row carries, by family, in the
/// order of SQL's `pushledger_rollup_catalog()` (sql/engine/outcome_counters.sql), and the slice
/// columns a rollup row is keyed by. Built from the lists it is made of (the outcome counters,
/// the causes, the latency buckets), so no counter name is written here; RollupCatalogTests
/// holds it equal to the SQL catalog, the rollup table and the report functions' columns.
public enum RollupCatalog {
    /// What a counter counts (the SQL catalog's `family`).
    public enum Family: String, Sendable, CaseIterable {
        case outcome, cause, latency, uninstrumented
        case causeUninstrumented = "cause_uninstrumented"
        case background
        case causeBackground = "cause_background"
    }

    /// One counter: its column name and family.
    public struct Counter: Sendable, Equatable {
        public let name: String
        public let family: Family
    }

    /// The slice columns, in catalog order.
    public static let sliceColumns = [
        "platform", "channel", "app_version", "campaign", "provider", "os_version", "sdk_int", "standby_bucket",
        "background_restricted", "ignoring_battery_optimizations", "low_power_mode", "push_type", "message_kind",
        "browser", "push_service",
    ]

    /// Every counter, in catalog order.
    public static let counters: [Counter] = {
        func family(_ family: Family, _ names: [String]) -> [Counter] {
            names.map { Counter(name: $0, family: family) }
        }
        let causes = UnconfirmedCause.allCases.map(\.rawValue)
        let unconfirmable = OutcomeCounter.unconfirmable.rawValue
        return family(.outcome, OutcomeCounter.allCases.map(\.rawValue)) + family(.cause, causes)
            + family(.latency, LatencyBucket.allCases.map(column))
            + family(.uninstrumented, [OutcomeCounter.unattributed.rawValue + "_uninstrumented"])
            + family(.causeUninstrumented, causes.map { $0 + "_uninstrumented" })
            + family(.background, [unconfirmable + "_uninstrumented", unconfirmable + "_unattributed"])
            + family(.causeBackground, causes.map { $0 + "_background" })
    }()

    /// The column of a latency bucket's count: `latency_lt_10s`.
    public static func column(_ bucket: LatencyBucket) -> String { "latency_" + bucket.rawValue }
}
