import Foundation
import Postgres
import PushLedgerContract
import PushLedgerRules
import PushLedgerSupport
import Simulator
import TestSupport
import Testing

@testable import OutcomeEngine
@testable import Reports

/// A hidden fleet with every cause of an unconfirmed send and every latency bucket, posted through
/// the real ingest server while the rollups are refreshed incrementally: the engine's and the
/// rollups' cause counts, latency buckets and rates equal the simulator's truth (computed from
/// the generated events with the Swift rules) per platform and channel, the v1.2 slices' outcome
/// counts too, and the incrementally refreshed rollups equal a rebuild.
@Suite("Causes and latency equal the simulator's truth")
struct CauseTruthFleetTests {
    @Test func everyCauseAndLatencyBucketOnAHiddenFleet() throws {
        let url = try TestDatabase.fresh(prefix: "causes")
        // The truth is as of its window's end: the rollups are refreshed as of the same time,
        // over and over while the fleet arrives (each refresh follows only the new data).
        let asOf = SimulationConfig.endingBefore(nowMs: Int64(Date().timeIntervalSince1970 * 1000) - 3_600_000, days: 3)
            .endMs
        let refreshing = Refreshing()
        let thread = Thread {
            defer { refreshing.done.signal() }
            guard let follower = try? Connection.connect(url: url) else { return }
            while !refreshing.stopped {
                _ = try? ReportRollups.refresh(
                    connection: follower, asOf: Date(timeIntervalSince1970: Double(asOf) / 1000))
                refreshing.passes += 1
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
        thread.start()
        let (connection, truth) = try SimulatorTruthTests.simulate(seed: 31, url: url) { config in
            config.installs = 400
            config.startMs -= 86_400_000  // four days: long enough for receipts a day late
            config.days = 4
            // more of each mechanism than the defaults, so that every cause shows on every platform
            config.offlineDailyChance = 0.2
            config.forceStopDailyChance = 0.1
            config.androidSdkMix = [(31, 0.2), (34, 0.3), (35, 0.5)]
        }
        refreshing.stopped = true
        refreshing.done.wait()
        #expect(truth.window.asOf == asOf)
        let asOfDate = Date(timeIntervalSince1970: Double(asOf) / 1000)
        _ = try ReportRollups.refresh(connection: connection, asOf: asOfDate)
        #expect(refreshing.passes > 1, "refreshed while the fleet arrived")

        // The fleet has what the test is about.
        for cause in UnconfirmedCause.allCases { #expect(truth.count(cause) > 0, "\(cause)") }
        for bucket in LatencyBucket.allCases { #expect(truth.count(bucket) > 0, "\(bucket)") }

        // Engine and rollups, per platform and channel: counts and rates.
        let query = SimulatorTruthTests.query(truth)
        for source in [ReportSource.engine, .rollups] {
            let report = try SilentLossReport.run(
                connection: connection, query: query, by: [.platform, .channel], source: source)
            #expect(report.rows.count == Set(truth.outcomesByDay.map { "\($0.platform)|\($0.channel)" }).count)
            for row in report.rows {
                let platformName = try #require(row.values[.platform] ?? nil)
                let platform = try #require(Platform(rawValue: platformName))
                let channel = try #require(row.values[.channel] ?? nil)
                let causes = try #require(row.counts.causes)
                let accepted = [
                    SendOutcome.opened, .received, .blockedApp, .blockedChannel, .unconfirmed, .unattributed,
                ]
                .map { truth.count($0, channel: channel, platform: platform) }.reduce(0, +)
                #expect(row.counts.accepted == accepted, "\(source) \(platform) \(channel)")
                for cause in UnconfirmedCause.allCases {
                    let expected = truth.count(cause, channel: channel, platform: platform)
                    #expect(causes.count(cause) == expected, "\(source) \(platform) \(channel) \(cause)")
                    #expect(
                        causes.rate(cause) == Rate(expected, of: accepted),
                        "\(source) \(platform) \(channel) \(cause)_rate")
                }
                for bucket in LatencyBucket.allCases {
                    #expect(
                        causes.count(bucket) == truth.count(bucket, channel: channel, platform: platform),
                        "\(source) \(platform) \(channel) \(bucket)")
                }
                var truthBuckets: [LatencyBucket: Int] = [:]
                for bucket in LatencyBucket.allCases {
                    truthBuckets[bucket] = truth.count(bucket, channel: channel, platform: platform)
                }
                #expect(
                    causes.namedBuckets.map(\.bucket)
                        == [500, 900, 990].map { LatencyBucket.percentile(perMille: $0, counts: truthBuckets) })
            }
        }

        // The alerts' counts (silent_loss_up names the cause that moved most from them).
        let alertRows = try connection.query(
            "select * from pushledger_alert_delivery_counts(\(query.from), \(query.to), \(query.asOf))")
        #expect(!alertRows.isEmpty)
        for row in alertRows {
            let platform = try #require(Platform(rawValue: try row.decode("platform", as: String.self)))
            let channel: String = try row.decode("channel")
            for cause in UnconfirmedCause.allCases {
                #expect(
                    try row.decode(cause.rawValue, as: Int.self)
                        == truth.count(cause, channel: channel, platform: platform),
                    "alert counts \(platform) \(channel) \(cause)")
            }
        }

        // The v1.2 slices: outcome counts per platform and snapshot slice.
        let slices: [ReportDimension] = [
            .platform, .osVersion, .sdkInt, .standbyBucket, .backgroundRestricted,
            .ignoringBatteryOptimizations, .lowPowerMode,
        ]
        var expected: [String: Int] = [:]
        for row in truth.outcomesBySnapshot where row.count > 0 {
            let s = row.slice
            let key = [
                row.platform.rawValue, s.osVersion, s.sdkInt.map(String.init), s.standbyBucket,
                s.backgroundRestricted.map(String.init),
                s.ignoringBatteryOptimizations.map(String.init), s.lowPowerMode.map(String.init), row.outcome.rawValue,
            ]
            .map { $0 ?? "∅" }.joined(separator: "|")
            expected[key, default: 0] += row.count
        }
        #expect(Set(truth.outcomesBySnapshot.compactMap(\.slice.standbyBucket)).count == 5, "every standby bucket")
        for source in [ReportSource.engine, .rollups] {
            var actual: [String: Int] = [:]
            for row in try SilentLossReport.run(connection: connection, query: query, by: slices, source: source).rows {
                let values = slices.map { (row.values[$0] ?? nil) ?? "∅" }
                for outcome in SendOutcome.allCases where row.counts.count(of: outcome) > 0 {
                    actual[(values + [outcome.rawValue]).joined(separator: "|")] = row.counts.count(of: outcome)
                }
            }
            #expect(actual == expected, "\(source)")
        }

        // The rollups the refreshes built, and the outcomes and causes they hold per send, equal a
        // rebuild as of the same time (refresh times apart).
        func contents() throws -> [String] {
            try ["send_rollups_daily", "send_outcomes"].map { table in
                try connection.query(
                    """
                    select coalesce(string_agg(r, E'\\n' order by r), '') as rows
                      from (select (to_jsonb(t) - 'refreshed_at' - 'as_of')::text as r from \(identifier: table) t) x
                    """)[0].decode("rows")
            }
        }
        let incremental = try contents()
        try connection.execute("begin")
        _ = try connection.query("select * from pushledger_rollup_pass(\(asOfDate), '24 hours'::interval, true)")
        let rebuilt = try contents()
        try connection.execute("rollback")
        #expect(!incremental[0].isEmpty && !incremental[1].isEmpty)
        for (i, table) in ["send_rollups_daily", "send_outcomes"].enumerated() {
            let (mine, theirs) = (Set(incremental[i].split(separator: "\n")), Set(rebuilt[i].split(separator: "\n")))
            #expect(
                mine == theirs,
                """
                \(table): only incremental \(mine.subtracting(theirs).sorted().prefix(5)); only rebuilt \
                \(theirs.subtracting(mine).sorted().prefix(5))
                """
            )
        }
    }
}

/// The background refresher's flags.
private final class Refreshing: @unchecked Sendable {
    var stopped = false
    var passes = 0
    let done = DispatchSemaphore(value: 0)
}
