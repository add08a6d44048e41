/// Observations counted into buckets by upper bound, for a Prometheus histogram.
///
/// A value type: the owner keeps it behind its own lock or actor and hands a copy to the
/// renderer. Counts are stored per bucket; rendering makes them cumulative.
public struct Histogram: Sendable, Hashable {
    /// The Prometheus client default buckets, in seconds (request latencies).
    public static let defaultLatencyBounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// Finite upper bounds, strictly increasing; the `+Inf` bucket is implied.
    public let upperBounds: [Double]
    /// Observations per bucket (not cumulative); the last entry is the `+Inf` overflow.
    public private(set) var bucketCounts: [UInt64]
    public private(set) var sum: Double = 0
    public private(set) var count: UInt64 = 0

    /// An empty histogram. `upperBounds` must be finite and strictly increasing (a trailing
    /// `+Inf` is dropped, since that bucket always exists).
    public init(upperBounds: [Double] = Histogram.defaultLatencyBounds) {
        let bounds = upperBounds.last == .infinity ? Array(upperBounds.dropLast()) : upperBounds
        precondition(bounds.allSatisfy(\.isFinite), "histogram bounds must be finite")
        precondition(zip(bounds, bounds.dropFirst()).allSatisfy { $0 < $1 }, "histogram bounds must increase strictly")
        self.upperBounds = bounds
        bucketCounts = Array(repeating: 0, count: bounds.count + 1)
    }

    /// Counts `value` in the first bucket whose bound is ≥ `value` (`le` is inclusive).
    public mutating func observe(_ value: Double) {
        var low = 0, high = upperBounds.count
        while low < high {
            let middle = (low + high) / 2
            if upperBounds[middle] < value { low = middle + 1 } else { high = middle }
        }
        bucketCounts[value.isNaN ? upperBounds.count : low] += 1
        sum += value
        count += 1
    }

    /// Adds another histogram with the same bounds (e.g. per-thread ones into a total).
    public mutating func merge(_ other: Histogram) {
        precondition(other.upperBounds == upperBounds, "merged histograms need the same bounds")
        for index in bucketCounts.indices { bucketCounts[index] += other.bucketCounts[index] }
        sum += other.sum
        count += other.count
    }

    /// (upper bound, cumulative count) pairs ending with (+Inf, count).
    public var cumulativeBuckets: [(upperBound: Double, count: UInt64)] {
        var running: UInt64 = 0
        return bucketCounts.indices.map { index in
            running += bucketCounts[index]
            return (index < upperBounds.count ? upperBounds[index] : .infinity, running)
        }
    }
}
