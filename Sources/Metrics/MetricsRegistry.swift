import Synchronization

/// A live metric that can give a snapshot of itself as a Core `MetricFamily`.
public protocol MetricSource: Sendable {
    func snapshot() -> MetricFamily
}

/// The server's live metrics: thread-safe counters, gauges and histograms with fixed label
/// names, rendered by the Core's Prometheus 0.0.4 renderer.
public final class MetricsRegistry: Sendable {
    private let sources = Mutex<[any MetricSource]>([])

    public init() {}

    public func register<S: MetricSource>(_ source: S) -> S {
        sources.withLock { $0.append(source) }
        return source
    }

    /// The whole exposition, families in registration order, ending in a newline.
    public func render() -> String {
        Prometheus.render(sources.withLock { $0 }.map { $0.snapshot() })
    }
}

private func labels(_ names: [String], _ values: [String]) -> [MetricLabel] {
    zip(names, values).map { MetricLabel($0, $1) }
}

/// A monotonically increasing value per label set.
public final class CounterMetric: MetricSource {
    private let name: String
    private let help: String
    private let labelNames: [String]
    private let values = Mutex<[[String]: Double]>([:])

    public init(_ name: String, help: String, labels: [String] = []) {
        self.name = name
        self.help = help
        self.labelNames = labels
    }

    public func increment(_ labels: [String] = [], by amount: Double = 1) {
        precondition(labels.count == labelNames.count, "\(name): wrong label count")
        values.withLock { $0[labels, default: 0] += amount }
    }

    public func snapshot() -> MetricFamily {
        var samples = values.withLock { $0 }.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        if samples.isEmpty && labelNames.isEmpty { samples = [([], 0)] }
        return .counter(name, help: help, samples.map { (labels(labelNames, $0.key), $0.value) })
    }
}

/// A value that goes up and down, read when scraped.
public final class GaugeMetric: MetricSource {
    private let name: String
    private let help: String
    private let labelNames: [String]
    private let read: @Sendable () -> [([String], Double)]

    /// `read` returns the current samples (label values and value) at scrape time.
    public init(
        _ name: String, help: String, labels: [String] = [], read: @escaping @Sendable () -> [([String], Double)]
    ) {
        self.name = name
        self.help = help
        self.labelNames = labels
        self.read = read
    }

    public convenience init(_ name: String, help: String, value: @escaping @Sendable () -> Double) {
        self.init(name, help: help) { [([], value())] }
    }

    public func snapshot() -> MetricFamily {
        .gauge(name, help: help, read().map { (labels(labelNames, $0.0), $0.1) })
    }
}

/// Observations in buckets (a Core `Histogram` behind a lock).
public final class HistogramMetric: MetricSource {
    private let name: String
    private let help: String
    private let histogram: Mutex<Histogram>

    /// `buckets`: finite upper bounds in increasing order; `+Inf` is implied.
    public init(_ name: String, help: String, buckets: [Double]) {
        self.name = name
        self.help = help
        histogram = Mutex(Histogram(upperBounds: buckets))
    }

    public func observe(_ value: Double) { histogram.withLock { $0.observe(value) } }

    public func snapshot() -> MetricFamily { .histogram(name, help: help, [([], histogram.withLock { $0 })]) }
}
