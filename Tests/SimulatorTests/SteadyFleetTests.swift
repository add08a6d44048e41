import PushLedgerRules
import Testing

@testable import Simulator

/// A steady fleet's days look alike: each reported day's rates against the 7 days before it,
/// with the test and smallest moves of metrics.md "Regression alerts", in either direction,
/// find nothing; while a launch fleet (no warm-up) does drift, so the check can fail.
@Suite("A steady fleet's days look alike")
struct SteadyFleetTests {
    /// One rate's counts per day (ms of the day's start).
    struct Series {
        /// The smallest move metrics.md lets an alert fire on, in points.
        var minDelta: Double
        var days: [Int64: (numerator: Int, denominator: Int)] = [:]

        mutating func add(day: Int64, numerator: Int, denominator: Int) {
            let old = days[day] ?? (0, 0)
            days[day] = (old.numerator + numerator, old.denominator + denominator)
        }
    }

    /// Silent loss and confirmed delivery per platform and channel (outcomes as the truth
    /// classifies them), and each reason class's share of a provider's sends, per day from `from`.
    static func dailyRates(_ config: SimulationConfig, from: Int64) -> [String: Series] {
        var series: [String: Series] = [:]
        var truth = TruthAccumulator(
            config: config, window: TruthWindow(from: from, to: config.endMs, asOf: config.endMs))
        for index in 0..<config.installs {
            let installation = GeneratedInstallation(index: index, config: config)
            truth.add(installation)
            for send in installation.sends where send.sentAt >= from && send.sentAt < config.endMs {
                let day = SimTime.day(send.sentAt) * SimTime.msPerDay
                let rejected =
                    (200...299).contains(send.status)
                    ? nil
                    : RejectionClass.of(provider: send.provider, status: send.status, reason: send.reason) ?? .other
                for kind in RejectionClass.allCases {
                    series["rejections \(send.provider.rawValue)/\(kind.rawValue)", default: Series(minDelta: 1)]
                        .add(day: day, numerator: rejected == kind ? 1 : 0, denominator: 1)
                }
            }
        }
        let firstDay = SimTime.day(from) * SimTime.msPerDay
        let days = Dictionary(
            uniqueKeysWithValues: (0..<(config.simulatedDays + 7)).map { i in
                let day = firstDay + Int64(i) * SimTime.msPerDay
                return (String(SimTime.rfc3339(day).prefix(10)), day)
            })
        for row in truth.finish(duplicateSendEvents: 0).outcomesByDay
        where ![.rejected, .pending].contains(row.outcome) {
            guard let day = days[row.day] else { continue }
            let slice = "\(row.platform.rawValue)/\(row.channel)"
            let silent = [.blockedApp, .blockedChannel, .unconfirmed].contains(row.outcome)
            let confirmed = [.received, .opened].contains(row.outcome)
            series["silent_loss \(slice)", default: Series(minDelta: 2)].add(
                day: day, numerator: silent ? row.count : 0, denominator: row.count)
            series["confirmed \(slice)", default: Series(minDelta: 5)].add(
                day: day, numerator: confirmed ? row.count : 0, denominator: row.count)
        }
        return series
    }

    /// Days in `days` (0 = the first reported day) whose rate moved from the 7 days before by
    /// at least the smallest move, with one-sided p < 0.01. Only promotions and rejections: an
    /// order's three sends and a chat's replies go to one device on one day, so those slices'
    /// per-send test sees far more certainty than their few dozen orders a day carry.
    static func moves(_ config: SimulationConfig, days: Range<Int>) -> [String] {
        let rates = dailyRates(config, from: config.startMs + Int64(days.lowerBound - 7) * SimTime.msPerDay)
        var found: [String] = []
        for (name, series) in rates.sorted(by: { $0.key < $1.key })
        where name.hasPrefix("rejections") || name.hasSuffix("/promotions") {
            for d in days {
                let day = config.startMs + Int64(d) * SimTime.msPerDay
                guard let recent = series.days[day], recent.denominator >= 200 else { continue }
                var baseline = (numerator: 0, denominator: 0)
                for b in 1...7 {
                    let counts = series.days[day - Int64(b) * SimTime.msPerDay] ?? (0, 0)
                    baseline = (baseline.numerator + counts.numerator, baseline.denominator + counts.denominator)
                }
                let r = Rate(recent.numerator, of: recent.denominator),
                    b = Rate(baseline.numerator, of: baseline.denominator)
                guard let rv = r.value, let bv = b.value else { continue }
                let delta = (rv - bv) * 100
                let p = Statistics.oneSidedPValue(r, versus: b, direction: delta > 0 ? .up : .down) ?? 1
                if abs(delta) >= series.minDelta && p < 0.01 {
                    found.append(
                        "\(name) day \(d): \(bv * 100)% → \(rv * 100)% (n \(b.denominator) → \(r.denominator), p \(p))")
                }
            }
        }
        return found
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func steadyFleetHasNoMoves(seed: UInt64) {
        var config = Fixtures.config(installs: 1_500, seed: seed)
        config.days = 5
        config.makeSteady(warmupDays: 14)
        // recent days from the warm-up's tenth (its baseline starts on the third) to the last
        // complete one (the last day's sends are pending)
        let found = Self.moves(config, days: -5..<4)
        #expect(found.isEmpty, "\(found)")
    }

    @Test func launchFleetDrifts() {
        var config = Fixtures.config(installs: 1_500, seed: 1)
        config.days = 9
        let found = Self.moves(config, days: 1..<8)
        // silent loss of promotions climbs as young installs block channels and get sends
        #expect(found.contains { $0.hasPrefix("silent_loss android/promotions") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("silent_loss ios/promotions") }, "\(found)")
    }
}
