/// The direction in which a rate moving counts as a change worth testing (an alert's "bad direction").
public enum ChangeDirection: String, Sendable, Hashable, Codable, CaseIterable {
    case up
    case down
}

extension Statistics {
    /// The pooled two-proportion z statistic of `candidate` − `baseline`.
    ///
    /// `sampleSizes` replaces the denominators in the variance when the counted items come in
    /// clusters (several sends to one device share its state): the number of independent units
    /// behind each rate. nil when either denominator (or sample size) is 0, or when the pooled
    /// variance is 0 (both rates 0 or both 1): there is then no spread to measure against.
    public static func pooledZ(
        _ candidate: Rate, versus baseline: Rate, sampleSizes: (candidate: Int, baseline: Int)? = nil
    )
        -> Double?
    {
        guard let p1 = candidate.value, let p2 = baseline.value else { return nil }
        let n1 = Double(min(sampleSizes?.candidate ?? candidate.denominator, candidate.denominator))
        let n2 = Double(min(sampleSizes?.baseline ?? baseline.denominator, baseline.denominator))
        guard n1 > 0, n2 > 0 else { return nil }
        let pooled =
            Double(candidate.numerator + baseline.numerator) / Double(candidate.denominator + baseline.denominator)
        let variance = pooled * (1 - pooled) * (1 / n1 + 1 / n2)
        guard variance > 0 else { return nil }
        return (p1 - p2) / variance.squareRoot()
    }

    /// Two-sided p-value of the pooled two-proportion z-test; 1.0 when both rates are 0 or both
    /// 1 (docs/metrics.md); nil when either denominator is 0.
    public static func twoSidedPValue(_ candidate: Rate, versus baseline: Rate) -> Double? {
        guard candidate.denominator > 0, baseline.denominator > 0 else { return nil }
        guard let z = pooledZ(candidate, versus: baseline) else { return 1 }
        // 2·(1 − Φ(|z|)) = erfc(|z|/√2), kept in the tail for precision.
        return min(1, 2 * normalSurvival(abs(z)))
    }

    /// One-sided p-value that `candidate` moved from `baseline` in `direction` (pooled z-test,
    /// with `sampleSizes` as in `pooledZ`).
    ///
    /// 1.0 when both rates are 0 or both 1: the rates are equal, so there is no evidence of a
    /// move either way. nil when either denominator is 0.
    public static func oneSidedPValue(
        _ candidate: Rate, versus baseline: Rate, direction: ChangeDirection,
        sampleSizes: (candidate: Int, baseline: Int)? = nil
    ) -> Double? {
        guard candidate.denominator > 0, baseline.denominator > 0 else { return nil }
        guard let z = pooledZ(candidate, versus: baseline, sampleSizes: sampleSizes) else { return 1 }
        switch direction {
        case .up: return normalSurvival(z)
        case .down: return normalCDF(z)
        }
    }
}

/// A cohort's rate against a baseline's: difference, Wilson intervals and the two-sided
/// pooled z-test p-value (docs/metrics.md, "Comparison with a baseline cohort").
public struct RateComparison: Sendable, Hashable {
    public let candidate: Rate
    public let baseline: Rate
    /// (candidate − baseline) in percentage points; nil when either rate is null.
    public let differencePoints: Double?
    public let candidateInterval: ConfidenceInterval?
    public let baselineInterval: ConfidenceInterval?
    /// Two-sided p-value; nil when either denominator is 0.
    public let pValue: Double?

    /// Compares with intervals at critical value `z` (default 95%).
    public init(candidate: Rate, baseline: Rate, z: Double = Statistics.z95) {
        self.candidate = candidate
        self.baseline = baseline
        if let c = candidate.value, let b = baseline.value {
            differencePoints = (c - b) * 100
        } else {
            differencePoints = nil
        }
        candidateInterval = candidate.wilsonInterval(z: z)
        baselineInterval = baseline.wilsonInterval(z: z)
        pValue = Statistics.twoSidedPValue(candidate, versus: baseline)
    }

    /// True when either denominator is under ``Rate/lowVolumeThreshold``; the figures are still
    /// computed, and outputs show the mark beside them.
    public var insufficientData: Bool { candidate.isLowVolume || baseline.isLowVolume }
}

extension RateComparison: Encodable {
    private enum CodingKeys: String, CodingKey {
        case candidate, baseline
        case differencePoints = "difference_pp"
        case candidateInterval = "candidate_interval"
        case baselineInterval = "baseline_interval"
        case pValue = "p_value"
        case insufficientData = "insufficient_data"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(candidate, forKey: .candidate)
        try container.encode(baseline, forKey: .baseline)
        try container.encode(differencePoints, forKey: .differencePoints)
        try container.encode(candidateInterval, forKey: .candidateInterval)
        try container.encode(baselineInterval, forKey: .baselineInterval)
        try container.encode(pValue, forKey: .pValue)
        try container.encode(insufficientData, forKey: .insufficientData)
    }
}
