import Foundation

/// Statistics used by reports and alerts: the standard normal distribution, the median, Wilson
/// score intervals and pooled two-proportion z-tests (definitions in docs/metrics.md).
public enum Statistics {
    /// The two-sided 95% critical value of the standard normal, Φ⁻¹(0.975).
    public static let z95 = 1.959_963_984_540_054

    /// Φ(x), the standard normal cumulative distribution function.
    ///
    /// Written through `erfc` so both tails keep their relative precision (1 − Φ would cancel).
    public static func normalCDF(_ x: Double) -> Double {
        0.5 * erfc(-x / 2.0.squareRoot())
    }

    /// 1 − Φ(x), the upper tail, accurate far out where `1 - normalCDF(x)` would round to 0.
    public static func normalSurvival(_ x: Double) -> Double {
        0.5 * erfc(x / 2.0.squareRoot())
    }

    /// Φ⁻¹(p): −∞ at 0, +∞ at 1, NaN outside [0, 1].
    ///
    /// Acklam's rational approximation (relative error ~1e-9) refined by one Halley step on
    /// `normalCDF`, which brings it to full double precision.
    public static func normalQuantile(_ p: Double) -> Double {
        guard p >= 0, p <= 1 else { return .nan }
        if p == 0 { return -.infinity }
        if p == 1 { return .infinity }
        // Solve in the lower half only: 1 − p is exact for p ≥ 0.5, so the symmetry loses nothing.
        if p > 0.5 { return -normalQuantile(1 - p) }
        let x = acklam(p)
        let error = normalCDF(x) - p
        let u = error * (2 * Double.pi).squareRoot() * exp(x * x / 2)
        return x - u / (1 + x * u / 2)
    }

    /// The two-sided critical value for a confidence level (0.95 → 1.95996…); nil unless 0 < level < 1.
    public static func zScore(confidence level: Double) -> Double? {
        guard level > 0, level < 1 else { return nil }
        return normalQuantile(1 - (1 - level) / 2)
    }

    /// The median; the mean of the two middle values for an even count; nil when empty.
    public static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        if sorted.count % 2 == 1 { return sorted[middle] }
        return sorted[middle - 1] / 2 + sorted[middle] / 2
    }

    /// Acklam's approximation for 0 < p ≤ 0.5.
    private static func acklam(_ p: Double) -> Double {
        let a = [
            -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
            -3.066479806614716e+01,
            2.506628277459239e+00,
        ]
        let b = [
            -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
            -1.328068155288572e+01,
        ]
        let c = [
            -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
            4.374664141464968e+00,
            2.938163982698783e+00,
        ]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        if p < 0.024_25 {
            let q = (-2 * log(p)).squareRoot()
            return horner(c, q) / (horner(d, q) * q + 1)
        }
        let q = p - 0.5
        let r = q * q
        return horner(a, r) * q / (horner(b, r) * r + 1)
    }

    /// c₀xⁿ⁻¹ + … + cₙ₋₁ for coefficients highest power first.
    private static func horner(_ coefficients: [Double], _ x: Double) -> Double {
        coefficients.reduce(0) { $0 * x + $1 }
    }
}
