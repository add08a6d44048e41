import Foundation
import PushLedgerRules
import Testing

@testable import Simulator

/// The fleet produces every cause of an unconfirmed send and every latency bucket, each from the
/// mechanism that causes it, and `--truth` states them.
@Suite struct CauseTruthTests {
    @Test func theDefaultFleetHasEveryCauseAndEveryLatencyBucket() throws {
        let truth = Simulation.generate(Fixtures.config(installs: 600)).truth
        for cause in UnconfirmedCause.allCases { #expect(truth.count(cause) > 0, "\(cause)") }
        for bucket in LatencyBucket.allCases { #expect(truth.count(bucket) > 0, "\(bucket)") }
        // causes partition unconfirmed; buckets partition received and opened
        #expect(UnconfirmedCause.allCases.map { truth.count($0) }.reduce(0, +) == truth.count(.unconfirmed))
        #expect(
            LatencyBucket.allCases.map { truth.count($0) }.reduce(0, +) == truth.count(.received) + truth.count(.opened)
        )
        // where each comes from: APNs keeps one notification per app, FCM one per collapse id;
        // force-stops exist only on Android 15+
        #expect(truth.count(.superseded, platform: .ios) > 0 && truth.count(.superseded, platform: .android) > 0)
        #expect(truth.count(.appStopped, platform: .ios) == 0)
        #expect(
            truth.count(.expired, channel: "promotions") == truth.count(.expired), "only promotions carry an expiry")
        let json = try Fixtures.object(truth.json())
        let causes = try #require(json["causes"] as? [[String: Any]])
        #expect(causes.compactMap { $0["count"] as? Int }.reduce(0, +) == truth.count(.unconfirmed))
        let latency = try #require(json["latency"] as? [[String: Any]])
        #expect(Set(latency.compactMap { $0["bucket"] as? String }) == Set(LatencyBucket.allCases.map(\.rawValue)))
    }

    @Test func sendsCarryCollapseIDsAndExpiriesAndSnapshotsTheDeviceState() throws {
        let config = Fixtures.config(installs: 200)
        var collapse = 0, expiring = 0, forceStopped = 0
        var r = SimRandom(seed: 1, stream: 9)
        for index in 0..<config.installs {
            let installation = GeneratedInstallation(index: index, config: config)
            for batch in SendsEncoder(config: config).batches(installation.sends, random: &r) {
                for send in try Fixtures.sends(batch) {
                    if send["collapse_id"] != nil { collapse += 1 }
                    if let expiry = send["expires_at"] as? String, let sent = send["sent_at"] as? String {
                        #expect(expiry > sent)
                        expiring += 1
                    }
                }
            }
            for batch in installation.batches {
                let body = try Fixtures.object(batch.body)
                let platform = body["platform"] as? String
                for event in body["events"] as? [[String: Any]] ?? []
                where event["type"] as? String == "notification_settings" {
                    if platform == "android" {
                        #expect(event["standby_bucket"] is String && event["background_restricted"] is Bool)
                        if event["force_stopped_before_start"] as? Bool == true { forceStopped += 1 }
                    } else {
                        #expect(event["low_power_mode"] is Bool && event["standby_bucket"] == nil)
                    }
                }
            }
        }
        #expect(collapse > 0 && expiring > 0 && forceStopped > 0)
    }
}
