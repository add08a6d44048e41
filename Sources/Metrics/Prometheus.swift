/// A metric label: name and value (the value is escaped when rendered).
public struct MetricLabel: Sendable, Hashable {
    public let name: String
    public let value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// One metric family of the Prometheus text exposition format: a name, its HELP and TYPE,
/// and its series.
public struct MetricFamily: Sendable, Hashable {
    public enum Series: Sendable, Hashable {
        case sample(labels: [MetricLabel], value: Double)
        case histogram(labels: [MetricLabel], Histogram)
    }

    public enum Kind: String, Sendable, Hashable {
        case counter, gauge, histogram
    }

    public let name: String
    public let help: String
    public let kind: Kind
    public let series: [Series]

    /// A counter (conventionally named `…_total`); one value per label set.
    public static func counter(_ name: String, help: String, _ samples: [([MetricLabel], Double)]) -> MetricFamily {
        MetricFamily(name: name, help: help, kind: .counter, series: samples.map { .sample(labels: $0.0, value: $0.1) })
    }

    /// A gauge; one value per label set.
    public static func gauge(_ name: String, help: String, _ samples: [([MetricLabel], Double)]) -> MetricFamily {
        MetricFamily(name: name, help: help, kind: .gauge, series: samples.map { .sample(labels: $0.0, value: $0.1) })
    }

    /// A histogram; one per label set (none may use the label `le`).
    public static func histogram(
        _ name: String, help: String, _ histograms: [([MetricLabel], Histogram)]
    ) -> MetricFamily {
        precondition(histograms.allSatisfy { !$0.0.contains { $0.name == "le" } }, "'le' is reserved in histograms")
        return MetricFamily(
            name: name, help: help, kind: .histogram, series: histograms.map { .histogram(labels: $0.0, $0.1) })
    }

    private init(name: String, help: String, kind: Kind, series: [Series]) {
        precondition(Prometheus.isValidMetricName(name), "invalid metric name '\(name)'")
        for case .sample(let labels, _) in series { Prometheus.checkLabelNames(labels) }
        for case .histogram(let labels, _) in series { Prometheus.checkLabelNames(labels) }
        self.name = name
        self.help = help
        self.kind = kind
        self.series = series
    }
}

/// The Prometheus text exposition format, version 0.0.4.
public enum Prometheus {
    /// The `Content-Type` of a `/metrics` response.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The exposition of `families`, in the order given; ends with a newline.
    public static func render(_ families: [MetricFamily]) -> String {
        var out = ""
        for family in families {
            out += "# HELP \(family.name) \(escapeHelp(family.help))\n"
            out += "# TYPE \(family.name) \(family.kind.rawValue)\n"
            for series in family.series {
                switch series {
                case .sample(let labels, let value):
                    out += "\(family.name)\(labelText(labels)) \(formatValue(value))\n"
                case .histogram(let labels, let histogram):
                    for bucket in histogram.cumulativeBuckets {
                        let le = MetricLabel("le", formatValue(bucket.upperBound))
                        out += "\(family.name)_bucket\(labelText(labels + [le])) \(bucket.count)\n"
                    }
                    out += "\(family.name)_sum\(labelText(labels)) \(formatValue(histogram.sum))\n"
                    out += "\(family.name)_count\(labelText(labels)) \(histogram.count)\n"
                }
            }
        }
        return out
    }

    /// A sample value as Prometheus writes it: `+Inf`, `-Inf`, `NaN`, whole numbers without a
    /// decimal point, others in shortest round-trip form.
    public static func formatValue(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Inf" : "+Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`
    public static func isValidMetricName(_ name: String) -> Bool {
        isValidName(name, extra: ":")
    }

    /// `[a-zA-Z_][a-zA-Z0-9_]*`, not starting with `__` (reserved for Prometheus itself).
    public static func isValidLabelName(_ name: String) -> Bool {
        isValidName(name, extra: nil) && !name.hasPrefix("__")
    }

    /// Label values escape backslash, double quote and line feed.
    static func escapeLabelValue(_ value: String) -> String {
        escape(value, quote: true)
    }

    /// HELP text escapes backslash and line feed.
    static func escapeHelp(_ text: String) -> String {
        escape(text, quote: false)
    }

    static func checkLabelNames(_ labels: [MetricLabel]) {
        for label in labels { precondition(isValidLabelName(label.name), "invalid label name '\(label.name)'") }
    }

    private static func labelText(_ labels: [MetricLabel]) -> String {
        guard !labels.isEmpty else { return "" }
        return "{" + labels.map { "\($0.name)=\"\(escapeLabelValue($0.value))\"" }.joined(separator: ",") + "}"
    }

    private static func escape(_ text: String, quote: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\"" where quote: out += "\\\""
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isValidName(_ name: String, extra: Unicode.Scalar?) -> Bool {
        guard let first = name.unicodeScalars.first else { return false }
        func allowed(_ scalar: Unicode.Scalar, digits: Bool) -> Bool {
            switch scalar {
            case "a"..."z", "A"..."Z", "_": return true
            case "0"..."9": return digits
            default: return scalar == extra
            }
        }
        return allowed(first, digits: false) && name.unicodeScalars.dropFirst().allSatisfy { allowed($0, digits: true) }
    }
}
