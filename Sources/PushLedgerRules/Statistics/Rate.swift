/// A proportion with its counts, as every rate in reports is shown (docs/metrics.md "Rates").
public struct Rate: Sendable, Hashable {
    /// Denominators under this are marked `low_volume` (and comparisons `insufficient_data`).
    public static let lowVolumeThreshold = 30

    public let numerator: Int
    public let denominator: Int

    /// A rate of `numerator` out of `denominator`; the counts must satisfy 0 ≤ numerator ≤ denominator.
    public init(_ numerator: Int, of denominator: Int) {
        precondition(
            numerator >= 0 && numerator <= denominator,
            "Rate needs 0 ≤ numerator ≤ denominator, got \(numerator)/\(denominator)")
        self.numerator = numerator
        self.denominator = denominator
    }

    /// numerator / denominator, or nil when the denominator is 0.
    public var value: Double? {
        denominator == 0 ? nil : Double(numerator) / Double(denominator)
    }

    /// True when the denominator is under ``lowVolumeThreshold``.
    public var isLowVolume: Bool { denominator < Self.lowVolumeThreshold }

    /// The Wilson score interval at critical value `z` (default 95%); nil when the denominator is 0.
    ///
    /// Wilson rather than the normal approximation: it stays inside [0, 1] and is not
    /// degenerate at 0% or 100%, which small cohorts hit often.
    public func wilsonInterval(z: Double = Statistics.z95) -> ConfidenceInterval? {
        guard denominator > 0 else { return nil }
        let n = Double(denominator)
        let p = Double(numerator) / n
        let z2 = z * z
        let scale = 1 + z2 / n
        let center = (p + z2 / (2 * n)) / scale
        let halfWidth = z / scale * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot()
        // At 0 and n the bound is exact in theory; pin it so rounding can't leave −1e-17 or 1 + 1e-16.
        let lower = numerator == 0 ? 0 : max(0, center - halfWidth)
        let upper = numerator == denominator ? 1 : min(1, center + halfWidth)
        return ConfidenceInterval(lower: lower, upper: upper)
    }
}

extension Rate: Codable {
    private enum CodingKeys: String, CodingKey {
        case numerator, denominator, value
        case lowVolume = "low_volume"
    }

    /// Reads the counts; `value` and `low_volume` are derived, so they are not trusted from input.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let numerator = try container.decode(Int.self, forKey: .numerator)
        let denominator = try container.decode(Int.self, forKey: .denominator)
        guard numerator >= 0, numerator <= denominator else {
            throw DecodingError.dataCorruptedError(
                forKey: .numerator, in: container, debugDescription: "needs 0 ≤ numerator ≤ denominator")
        }
        self.init(numerator, of: denominator)
    }

    /// Writes `numerator`, `denominator`, `value` (null when the denominator is 0) and `low_volume`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(numerator, forKey: .numerator)
        try container.encode(denominator, forKey: .denominator)
        try container.encode(value, forKey: .value)
        try container.encode(isLowVolume, forKey: .lowVolume)
    }
}

/// A two-sided confidence interval for a proportion, both ends in [0, 1].
public struct ConfidenceInterval: Sendable, Hashable, Codable {
    public let lower: Double
    public let upper: Double

    public init(lower: Double, upper: Double) {
        self.lower = lower
        self.upper = upper
    }

    /// Whether `x` lies in the closed interval.
    public func contains(_ x: Double) -> Bool { lower <= x && x <= upper }
}
