import Foundation
import PushLedgerContract
import PushLedgerRules
import PushLedgerSupport
import Testing

@testable import Simulator

@Suite("Determinism and injected scenarios")
struct DeterminismAndInjectionTests {
    private func digest(_ output: Simulation.Output) -> String {
        var all: [UInt8] = []
        for batch in output.telemetry { all += batch.body }
        for batch in output.sends { all += Array(batch.contentType.utf8) + batch.body }
        all += output.truth.json()
        return SHA256.hex(SHA256.hash(all))
    }

    @Test func sameSeedSameBytesOtherSeedOtherBytes() {
        let a = digest(Simulation.generate(Fixtures.config(installs: 150, seed: 3)))
        let b = digest(Simulation.generate(Fixtures.config(installs: 150, seed: 3)))
        let c = digest(Simulation.generate(Fixtures.config(installs: 150, seed: 4)))
        #expect(a == b)
        #expect(a != c)
    }

    /// Rows of `a` and `b` (restricted by `keep`) that differ; empty when the slices are identical.
    private func differences(_ a: Truth, _ b: Truth, where keep: (Truth.OutcomeCount) -> Bool) -> [String] {
        func describe(_ t: Truth) -> Set<String> {
            Set(
                t.outcomesByDay.filter(keep).map {
                    "\($0.day) \($0.channel) \($0.platform) \($0.appVersion ?? "-") \($0.outcome) \($0.count)"
                })
        }
        return describe(a).symmetricDifference(describe(b)).sorted()
    }
    private func before(_ day: Int) -> (Truth.OutcomeCount) -> Bool { { $0.day < Fixtures.dayString(day) } }

    /// Sum over the days from `from` on.
    private func count(
        _ truth: Truth, _ outcome: SendOutcome, channel: String? = nil, platform: Platform, from: Int,
        version: String? = nil
    ) -> Int {
        truth.outcomesByDay.filter {
            $0.outcome == outcome && $0.day >= Fixtures.dayString(from) && $0.platform == platform
                && (channel == nil || $0.channel == channel) && (version == nil || $0.appVersion == version)
        }.reduce(0) { $0 + $1.count }
    }

    @Test func channelBlockSpikeRaisesAndroidPromotionsBlockedFromItsDay() {
        let base = Simulation.generate(Fixtures.config(installs: 600, seed: 5)).truth
        let spike = Simulation.generate(
            Fixtures.config(installs: 600, seed: 5, injections: [.channelBlockSpike(day: 7, share: 0.3)])
        ).truth
        #expect(differences(spike, base, where: before(7)) == [])
        #expect(differences(spike, base) { $0.platform == .ios } == [])
        let before = count(base, .blockedChannel, channel: "promotions", platform: .android, from: 8)
        let after = count(spike, .blockedChannel, channel: "promotions", platform: .android, from: 8)
        #expect(after > before * 2 && after - before > 50, "blocked_channel \(before) → \(after)")
        // orders are not touched
        #expect(
            count(spike, .blockedChannel, channel: "orders", platform: .android, from: 0)
                == count(base, .blockedChannel, channel: "orders", platform: .android, from: 0))
    }

    @Test func receiptsOutageTurnsReceiptsIntoUnconfirmedFromItsDay() {
        let base = Simulation.generate(Fixtures.config(installs: 600, seed: 6)).truth
        let outage = Simulation.generate(
            Fixtures.config(installs: 600, seed: 6, injections: [.receiptsOutage(day: 7, appVersion: "5.2.0")])
        ).truth
        // receipts of sends from the day before can come in on the outage day (devices offline
        // up to 30 h), so the days untouched are those two days before it
        #expect(differences(outage, base, where: before(5)) == [])
        // the fleet's phones (it has no web installations)
        for platform in [Platform.ios, .android] {
            let receivedBase = count(base, .received, platform: platform, from: 8, version: "5.2.0")
            let receivedOutage = count(outage, .received, platform: platform, from: 8, version: "5.2.0")
            #expect(
                receivedBase > 100 && receivedOutage * 10 < receivedBase,
                "\(platform) received \(receivedBase) → \(receivedOutage)")
            let unconfirmedBase = count(base, .unconfirmed, platform: platform, from: 8, version: "5.2.0")
            let unconfirmedOutage = count(outage, .unconfirmed, platform: platform, from: 8, version: "5.2.0")
            #expect(
                unconfirmedOutage > unconfirmedBase + receivedBase / 2,
                "\(platform) unconfirmed \(unconfirmedBase) → \(unconfirmedOutage)")
        }
    }

    @Test func apnsThrottleBurstRejectsIOSSendsOnItsDayOnly() {
        let base = Simulation.generate(Fixtures.config(installs: 600, seed: 8)).truth
        let burst = Simulation.generate(
            Fixtures.config(
                installs: 600, seed: 8, injections: [.apnsThrottleBurst(day: 7, hour: 9, hours: 3, probability: 0.4)])
        ).truth
        #expect(differences(burst, base, where: before(7)) == [])
        #expect(differences(burst, base) { $0.platform == .android } == [])
        let day7 = Fixtures.dayString(7)
        let rejectedBase = base.count(.rejected, platform: .ios, day: day7)
        let rejectedBurst = burst.count(.rejected, platform: .ios, day: day7)
        #expect(rejectedBurst > rejectedBase + 30, "rejected on day 7: \(rejectedBase) → \(rejectedBurst)")
        let throttled = { (t: Truth) in
            t.rejections.filter { $0.reason == "TooManyRequests" }.reduce(0) { $0 + $1.count }
        }
        // retries inside the burst add a few other transient errors; nearly all new rejections are throttling
        #expect(Double(throttled(burst) - throttled(base)) >= 0.8 * Double(rejectedBurst - rejectedBase))
    }

    @Test func injectionOptionParsing() throws {
        #expect(try Injection.parse("channel-block-spike@3", days: 14) == .channelBlockSpike(day: 3, share: 0.5))
        #expect(try Injection.parse("receipts-outage", days: 14) == .receiptsOutage(day: 7, appVersion: "5.2.0"))
        #expect(throws: SimulationError.self) { try Injection.parse("apns-throttle-burst@14", days: 14) }
        #expect(throws: SimulationError.self) { try Injection.parse("solar-flare", days: 14) }
    }
}
