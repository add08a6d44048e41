import Foundation
import Testing

@testable import PushLedgerRules

/// Reference values: python3 with scipy 1.17 (`scipy.stats.norm`) and mpmath at 40 digits,
/// unless a case names a published source; each test names the expression it was taken from.
@Suite("Normal distribution and median")
struct NormalDistributionTests {
    /// scipy `norm.cdf(x)`, cross-checked with mpmath `ncdf(x)`.
    @Test(arguments: [
        (-5.0, 2.866515718791939e-07),
        (-1.96, 0.024997895148220435),
        (-1.0, 0.15865525393145705),
        (0.0, 0.5),
        (0.5, 0.6914624612740131),
        (1.0, 0.8413447460685429),
        (1.959963984540054, 0.975),
        (3.0, 0.9986501019683699),
    ])
    func cdfAgainstScipy(x: Double, expected: Double) {
        #expect(abs(Statistics.normalCDF(x) - expected) < 1e-12)
        #expect(abs(Statistics.normalSurvival(-x) - expected) < 1e-12)
    }

    /// Far tails keep relative precision: scipy `norm.sf(x)` (= `norm.cdf(-x)`).
    @Test(arguments: [
        (8.0, 6.22096057427174e-16),
        (10.0, 7.61985302416047e-24),
        (20.0, 2.7536241186061556e-89),
        (37.0, 5.7255712225239266e-300),
    ])
    func tailsAgainstScipy(x: Double, expected: Double) {
        #expect(abs(Statistics.normalSurvival(x) / expected - 1) < 1e-9)
        #expect(abs(Statistics.normalCDF(-x) / expected - 1) < 1e-9)
    }

    /// scipy `norm.ppf(p)`.
    @Test(arguments: [
        (1e-300, -37.0470962993612),
        (1e-10, -6.361340902404056),
        (0.001, -3.090232306167813),
        (0.02425, -1.972961051311885),
        (0.025, -1.9599639845400545),
        (0.3, -0.5244005127080409),
        (0.5, 0.0),
        (0.975, 1.959963984540054),
        (0.999999, 4.753424308817087),
    ])
    func quantileAgainstScipy(p: Double, expected: Double) {
        #expect(abs(Statistics.normalQuantile(p) - expected) < 1e-9)
    }

    @Test func quantileEdges() {
        #expect(Statistics.normalQuantile(0) == -.infinity)
        #expect(Statistics.normalQuantile(1) == .infinity)
        #expect(Statistics.normalQuantile(-0.1).isNaN)
        #expect(Statistics.normalQuantile(1.5).isNaN)
        #expect(Statistics.normalQuantile(.nan).isNaN)
    }

    /// scipy `norm.ppf(1 - (1 - c) / 2)`.
    @Test(arguments: [(0.9, 1.6448536269514722), (0.95, 1.959963984540054), (0.99, 2.5758293035489004)])
    func zScoreForConfidence(level: Double, expected: Double) throws {
        let z = try #require(Statistics.zScore(confidence: level))
        #expect(abs(z - expected) < 1e-12)
    }

    @Test func zScoreRejectsLevelsOutsideTheOpenUnitInterval() {
        #expect(Statistics.zScore(confidence: 0) == nil)
        #expect(Statistics.zScore(confidence: 1) == nil)
        #expect(Statistics.zScore(confidence: 95) == nil)
    }

    @Test func z95IsTheQuantile() {
        #expect(abs(Statistics.z95 - Statistics.normalQuantile(0.975)) < 1e-14)
    }

    @Test func median() {
        #expect(Statistics.median([]) == nil)
        #expect(Statistics.median([4]) == 4)
        #expect(Statistics.median([9, 1, 5]) == 5)
        #expect(Statistics.median([7, 1, 3, 10]) == 5)  // (3 + 7) / 2
        #expect(Statistics.median([2, 2, 2, 3]) == 2)
        #expect(Statistics.median([1.5, -1]) == 0.25)
        #expect(Statistics.median([.greatestFiniteMagnitude, .greatestFiniteMagnitude]) == .greatestFiniteMagnitude)
    }
}

@Suite("Rates and Wilson intervals")
struct RateTests {
    @Test func valueAndVolume() {
        let rate = Rate(12, of: 40)
        #expect(rate.value == 0.3)
        #expect(!rate.isLowVolume)
        #expect(Rate(0, of: 0).value == nil)
        #expect(Rate(0, of: 0).isLowVolume)
        #expect(Rate(29, of: 29).isLowVolume)
        #expect(!Rate(0, of: 30).isLowVolume)
    }

    @Test func numeratorAboveDenominatorIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) { _ = Rate(5, of: 3) }
        await #expect(processExitsWith: .failure) { _ = Rate(-1, of: 3) }
    }

    /// Newcombe (1998), "Two-sided confidence intervals for the single proportion", Stat. Med.
    /// 17:857–872, Table I, method 3 (score without continuity correction), to 4 decimals;
    /// the full-precision values are mpmath evaluations of the Wilson formula.
    @Test(arguments: [
        (81, 263, 0.2552885198782742, 0.36620957698280004, 0.2553, 0.3662),
        (15, 148, 0.062386399530736276, 0.16048724172330803, 0.0624, 0.1605),
        (0, 20, 0.0, 0.16112515805281938, 0.0000, 0.1611),
        (1, 29, 0.00611321429276266, 0.17175521879320288, 0.0061, 0.1718),
    ])
    func wilsonPublished(
        x: Int, n: Int, lower: Double, upper: Double, publishedLower: Double, publishedUpper: Double
    ) throws {
        let interval = try #require(Rate(x, of: n).wilsonInterval())
        #expect(abs(interval.lower - lower) < 1e-9)
        #expect(abs(interval.upper - upper) < 1e-9)
        #expect(abs(interval.lower - publishedLower) < 5e-5)
        #expect(abs(interval.upper - publishedUpper) < 5e-5)
    }

    /// mpmath evaluations of the Wilson formula.
    @Test(arguments: [
        (29, 29, 0.8830302015002592, 1.0),
        (500, 1000, 0.4690696003681042, 0.5309303996318958),
        (0, 1, 0.0, 0.7934506856227627),
    ])
    func wilsonComputed(x: Int, n: Int, lower: Double, upper: Double) throws {
        let interval = try #require(Rate(x, of: n).wilsonInterval())
        #expect(abs(interval.lower - lower) < 1e-9)
        #expect(abs(interval.upper - upper) < 1e-9)
    }

    @Test func wilsonAtOtherConfidence() throws {
        let z99 = try #require(Statistics.zScore(confidence: 0.99))
        let interval = try #require(Rate(81, of: 263).wilsonInterval(z: z99))
        #expect(abs(interval.lower - 0.24013690268760768) < 1e-9)
        #expect(abs(interval.upper - 0.38528250231822986) < 1e-9)
        #expect(interval.contains(81.0 / 263))
        #expect(!interval.contains(0.2))
    }

    @Test func wilsonIsNilWithoutTrials() {
        #expect(Rate(0, of: 0).wilsonInterval() == nil)
    }

    @Test func jsonCarriesCountsValueAndVolumeMark() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(Rate(3, of: 4)), as: UTF8.self)
        #expect(text == #"{"denominator":4,"low_volume":true,"numerator":3,"value":0.75}"#)
        let empty = String(decoding: try encoder.encode(Rate(0, of: 0)), as: UTF8.self)
        #expect(empty == #"{"denominator":0,"low_volume":true,"numerator":0,"value":null}"#)
    }

    @Test func jsonDecodingDerivesTheValueAndRejectsBadCounts() throws {
        let decoded = try JSONDecoder().decode(
            Rate.self, from: Data(#"{"numerator":1,"denominator":2,"value":0.9}"#.utf8))
        #expect(decoded == Rate(1, of: 2))
        #expect(decoded.value == 0.5)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Rate.self, from: Data(#"{"numerator":3,"denominator":2}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Rate.self, from: Data(#"{"numerator":-1,"denominator":2}"#.utf8))
        }
    }
}

@Suite("Two-proportion z-tests and comparisons")
struct RateComparisonTests {
    /// z and p-values from scipy (`norm.sf`); the two-sided p-value is also the p-value of
    /// `chi2_contingency(table, correction=False)`, an independent route to the same number.
    @Test(arguments: [
        (45, 100, 30, 100, 2.1908902300206647, 0.02845973691631055, 0.014229868458155276, 0.9857701315418447),
        (520, 1000, 500, 1000, 0.894606130121643, 0.37099767373660797, 0.18549883686830398, 0.8145011631316961),
        (0, 50, 3, 60, -1.6031511026549947, 0.10890129793272194, 0.945549351033639, 0.05445064896636097),
        (210, 10000, 150, 10000, 3.191128231363015, 0.0014171836617233344, 0.0007085918308616672, 0.9992914081691383),
        (30, 40, 40, 40, -3.3806170189140663, 0.0007232327164301925, 0.9996383836417849, 0.00036161635821509625),
    ])
    func pooledTest(x1: Int, n1: Int, x2: Int, n2: Int, z: Double, twoSided: Double, up: Double, down: Double) throws {
        let candidate = Rate(x1, of: n1), baseline = Rate(x2, of: n2)
        #expect(abs(try #require(Statistics.pooledZ(candidate, versus: baseline)) - z) < 1e-9)
        #expect(abs(try #require(Statistics.twoSidedPValue(candidate, versus: baseline)) - twoSided) < 1e-9)
        #expect(abs(try #require(Statistics.oneSidedPValue(candidate, versus: baseline, direction: .up)) - up) < 1e-9)
        #expect(
            abs(try #require(Statistics.oneSidedPValue(candidate, versus: baseline, direction: .down)) - down) < 1e-9)
    }

    /// Clustered counts: the variance uses the independent units (installations), the rates the
    /// counted sends. Reference values from the formula in Python (`0.5 * erfc(z / sqrt 2)`).
    @Test(arguments: [
        (2500, 2500, 1.5955641156815075, 0.055293072284287106),
        (2500, 10000, 2.0182467033543787, 0.021782787171724497),
    ])
    func sampleSizesReplaceTheDenominatorsInTheVariance(units1: Int, units2: Int, z: Double, up: Double) throws {
        let candidate = Rate(210, of: 10000), baseline = Rate(150, of: 10000)
        let sizes = (candidate: units1, baseline: units2)
        #expect(abs(try #require(Statistics.pooledZ(candidate, versus: baseline, sampleSizes: sizes)) - z) < 1e-9)
        #expect(
            abs(
                try #require(Statistics.oneSidedPValue(candidate, versus: baseline, direction: .up, sampleSizes: sizes))
                    - up) < 1e-9)
        // More units than items cannot add certainty; none at all gives no test.
        #expect(
            Statistics.pooledZ(candidate, versus: baseline, sampleSizes: (20000, 20000))
                == Statistics.pooledZ(candidate, versus: baseline))
        #expect(Statistics.pooledZ(candidate, versus: baseline, sampleSizes: (0, 100)) == nil)
    }

    @Test(arguments: [(0, 40, 0, 70), (40, 40, 70, 70)])
    func noSpreadMeansNoEvidence(x1: Int, n1: Int, x2: Int, n2: Int) {
        let candidate = Rate(x1, of: n1), baseline = Rate(x2, of: n2)
        #expect(Statistics.pooledZ(candidate, versus: baseline) == nil)
        #expect(Statistics.twoSidedPValue(candidate, versus: baseline) == 1)
        for direction in ChangeDirection.allCases {
            #expect(Statistics.oneSidedPValue(candidate, versus: baseline, direction: direction) == 1)
        }
    }

    @Test func emptyDenominatorHasNoTest() {
        #expect(Statistics.twoSidedPValue(Rate(0, of: 0), versus: Rate(3, of: 10)) == nil)
        #expect(Statistics.oneSidedPValue(Rate(3, of: 10), versus: Rate(0, of: 0), direction: .up) == nil)
        #expect(Statistics.pooledZ(Rate(3, of: 10), versus: Rate(0, of: 0)) == nil)
    }

    @Test func comparisonCombinesTheFigures() throws {
        let comparison = RateComparison(candidate: Rate(45, of: 100), baseline: Rate(30, of: 100))
        #expect(abs(try #require(comparison.differencePoints) - 15) < 1e-9)
        #expect(abs(try #require(comparison.pValue) - 0.02845973691631055) < 1e-9)
        #expect(comparison.candidateInterval == Rate(45, of: 100).wilsonInterval())
        #expect(comparison.baselineInterval == Rate(30, of: 100).wilsonInterval())
        #expect(!comparison.insufficientData)
    }

    @Test func comparisonIsInsufficientWhenEitherSideIsUnderThirty() {
        #expect(RateComparison(candidate: Rate(10, of: 29), baseline: Rate(30, of: 100)).insufficientData)
        #expect(RateComparison(candidate: Rate(30, of: 100), baseline: Rate(10, of: 29)).insufficientData)
        #expect(!RateComparison(candidate: Rate(10, of: 30), baseline: Rate(10, of: 30)).insufficientData)
    }

    @Test func comparisonWithAnEmptySide() {
        let comparison = RateComparison(candidate: Rate(0, of: 0), baseline: Rate(3, of: 40))
        #expect(comparison.differencePoints == nil)
        #expect(comparison.pValue == nil)
        #expect(comparison.candidateInterval == nil)
        #expect(comparison.insufficientData)
    }

    @Test func comparisonJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let comparison = RateComparison(candidate: Rate(0, of: 40), baseline: Rate(0, of: 40))
        let object = try #require(JSONSerialization.jsonObject(with: encoder.encode(comparison)) as? [String: Any])
        #expect(object["difference_pp"] as? Double == 0)
        #expect(object["p_value"] as? Double == 1)
        #expect(object["insufficient_data"] as? Bool == false)
        #expect((object["candidate_interval"] as? [String: Any])?["lower"] as? Double == 0)
    }
}
