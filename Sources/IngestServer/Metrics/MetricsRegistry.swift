import Foundation
import Synchronization

/// A metric family that renders itself in the Prometheus text format 0.0.4.
protocol MetricFamily: Sendable {
    var name: String { get }
    func render(into output: inout String)
}

/// A small Prometheus registry: counters, gauges and histograms with fixed label names.
final class MetricsRegistry: Sendable {
    private let families = Mutex<[any MetricFamily]>([])

    func register<F: MetricFamily>(_ family: F) -> F {
        families.withLock { $0.append(family) }
        return family
    }

    /// The whole exposition, families in registration order, ending in a newline.
    func render() -> String {
        var output = ""
        for family in families.withLock({ $0 }) { family.render(into: &output) }
        return output
    }

    static let contentType = "text/plain; version=0.0.4; charset=utf-8"
}

/// Header lines and sample formatting shared by the families.
private func header(_ output: inout String, name: String, help: String, type: String) {
    output += "# HELP \(name) \(help.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n"))\n"
    output += "# TYPE \(name) \(type)\n"
}

/// `{a="x",b="y"}` with values escaped; empty when there are no labels.
func labelText(_ names: [String], _ values: [String]) -> String {
    guard !names.isEmpty else { return "" }
    let pairs = zip(names, values).map { name, value in
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return "\(name)=\"\(escaped)\""
    }
    return "{" + pairs.joined(separator: ",") + "}"
}

/// A sample value: integers without a fraction, infinities as `+Inf` / `-Inf`.
func sampleText(_ value: Double) -> String {
    if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
    if value.isNaN { return "NaN" }
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}

/// A monotonically increasing value per label set.
final class Counter: MetricFamily {
    let name: String
    private let help: String
    private let labelNames: [String]
    private let values = Mutex<[[String]: Double]>([:])

    init(_ name: String, help: String, labels: [String] = []) {
        self.name = name
        self.help = help
        self.labelNames = labels
    }

    func increment(_ labels: [String] = [], by amount: Double = 1) {
        precondition(labels.count == labelNames.count, "\(name): wrong label count")
        values.withLock { $0[labels, default: 0] += amount }
    }

    func value(_ labels: [String] = []) -> Double { values.withLock { $0[labels] ?? 0 } }

    func render(into output: inout String) {
        header(&output, name: name, help: help, type: "counter")
        let samples = values.withLock { $0 }.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        if samples.isEmpty && labelNames.isEmpty { output += "\(name) 0\n" }
        for (labels, value) in samples { output += "\(name)\(labelText(labelNames, labels)) \(sampleText(value))\n" }
    }
}

/// A value that goes up and down, read when scraped.
final class Gauge: MetricFamily {
    let name: String
    private let help: String
    private let labelNames: [String]
    private let read: @Sendable () -> [([String], Double)]

    /// `read` returns the current samples (label values and value) at scrape time.
    init(_ name: String, help: String, labels: [String] = [], read: @escaping @Sendable () -> [([String], Double)]) {
        self.name = name
        self.help = help
        self.labelNames = labels
        self.read = read
    }

    convenience init(_ name: String, help: String, value: @escaping @Sendable () -> Double) {
        self.init(name, help: help) { [([], value())] }
    }

    func render(into output: inout String) {
        header(&output, name: name, help: help, type: "gauge")
        for (labels, value) in read() { output += "\(name)\(labelText(labelNames, labels)) \(sampleText(value))\n" }
    }
}

/// Observations counted in cumulative buckets, with their sum and count.
final class Histogram: MetricFamily {
    let name: String
    private let help: String
    private let bounds: [Double]
    private let state: Mutex<(buckets: [UInt64], sum: Double, count: UInt64)>

    /// `buckets` are the upper bounds in increasing order; `+Inf` is added.
    init(_ name: String, help: String, buckets: [Double]) {
        precondition(buckets == buckets.sorted(), "\(name): buckets must increase")
        self.name = name
        self.help = help
        self.bounds = buckets
        self.state = Mutex((Array(repeating: 0, count: buckets.count), 0, 0))
    }

    func observe(_ value: Double) {
        state.withLock { state in
            if let index = bounds.firstIndex(where: { value <= $0 }) { state.buckets[index] += 1 }
            state.sum += value
            state.count += 1
        }
    }

    var count: UInt64 { state.withLock { $0.count } }

    func render(into output: inout String) {
        header(&output, name: name, help: help, type: "histogram")
        let snapshot = state.withLock { $0 }
        var cumulative: UInt64 = 0
        for (bound, count) in zip(bounds, snapshot.buckets) {
            cumulative += count
            output += "\(name)_bucket{le=\"\(sampleText(bound))\"} \(cumulative)\n"
        }
        output += "\(name)_bucket{le=\"+Inf\"} \(snapshot.count)\n"
        output += "\(name)_sum \(sampleText(snapshot.sum))\n"
        output += "\(name)_count \(snapshot.count)\n"
    }
}
