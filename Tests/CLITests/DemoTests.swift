import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `make demo` in small: the real binaries as scripts/demo.sh runs them (migrate, serve as a
/// child process, keys, simulate a mature fleet after a warm-up, rollup, the weekly report as
/// JSON and HTML, SIGTERM), with the silent-loss report held against the simulator's `--truth` file.
@Suite struct DemoTests {
    @Test func reducedDemoMatchesTheTruthFile() throws {
        // web installations beside the phones, as make demo posts them
        let fleet = try SimulatedFleet(prefix: "demo", warmupDays: 11, arguments: ["--web-share", "0.2"])
        defer { fleet.removeTruth() }
        let env = fleet.environment
        let serve = fleet.serve

        // A graceful stop: in-flight requests finish, then exit 0.
        serve.send(SIGTERM)
        let exit = serve.waitForExit()
        // SIGTERM drains and exits 0 (tested on a real process: signalling the test process
        // itself would interrupt every other test running in parallel).
        #expect(exit.exited && exit.status == 0, "\(serve.logText)")
        #expect(serve.logText.contains("signal received, draining"))
        #expect(serve.logText.contains("msg=stopped"))

        let rollup = try CommandRunner.run(["rollup"], environment: env)
        #expect(rollup.status == 0, "\(rollup.stderr)")
        let truth = try fleet.truth()

        let weekly = try CommandRunner.run(["report", "weekly", "--format", "json"], environment: env)
        #expect(weekly.status == 0, "\(weekly.stderr)")
        let weeklyJSON = try #require(
            try JSONSerialization.jsonObject(with: Data(weekly.stdout.utf8)) as? [String: Any])
        // The new sections, every cause present in the week (the simulator models each one)
        let why = try #require(weeklyJSON["why_unconfirmed"] as? [[String: Any]])
        let all = try #require(why.first { $0["platform"] as? String == "all" }?["current"] as? [String: Any])
        #expect(
            ["superseded", "app_stopped", "expired", "device_inactive", "unexplained"].map { all[$0] as? Int ?? 0 }
                .reduce(0, +)
                == (weeklyJSON["headline"] as? [String: Any]).flatMap {
                    ($0["current"] as? [String: Any])?["unconfirmed"] as? Int
                })
        let truthCauses = Set(
            ((truth["causes"] as? [[String: Any]]) ?? []).filter { ($0["count"] as? Int ?? 0) > 0 }.compactMap {
                $0["cause"] as? String
            })
        // this reduced fleet (300 installations, 8 days) need not hold every cause; CauseTruthFleetTests' does
        #expect(
            truthCauses.count >= 4
                && truthCauses.isSubset(of: ["superseded", "app_stopped", "expired", "device_inactive", "unexplained"]))
        let headline = try #require((weeklyJSON["headline"] as? [String: Any])?["current"] as? [String: Any])
        #expect(headline["unexplained_rate"] is Double && headline["silent_loss_rate"] is Double)
        #expect(!(try #require(weeklyJSON["latency"] as? [[String: Any]])).isEmpty)
        let html = try CommandRunner.run(["report", "weekly", "--format", "html"], environment: env)
        #expect(html.status == 0, "\(html.stderr)")
        #expect(
            html.stdout.hasPrefix("<!DOCTYPE html>") && html.stdout.contains("<svg"), "the HTML report with its charts")
        #expect(html.stdout.contains("Why unconfirmed") && html.stdout.contains("Delivery latency"))

        // The truth's outcome totals per channel, and per platform, browser and push service
        // (web beside iOS and Android), equal the report's.
        let rows = try Self.expectOutcomes(by: ["channel"], truth: truth, fleet: fleet)
        let byBrowser = try Self.expectOutcomes(
            by: ["platform", "browser", "push_service"], truth: truth, fleet: fleet)
        #expect(Set(byBrowser.compactMap { $0["platform"] as? String }) == ["ios", "android", "web"])
        #expect(byBrowser.contains { $0["browser"] as? String == "chrome" && $0["push_service"] as? String == "fcm" })

        // The truth's causes and latency buckets per channel equal the report's.
        var expectedCauses: [String: [String: Int]] = [:]
        for row in try #require(truth["causes"] as? [[String: Any]]) {
            expectedCauses[try #require(row["channel"] as? String), default: [:]][
                try #require(row["cause"] as? String), default: 0] += try #require(row["count"] as? Int)
        }
        for row in try #require(truth["latency"] as? [[String: Any]]) {
            expectedCauses[try #require(row["channel"] as? String), default: [:]][
                "latency_" + (try #require(row["bucket"] as? String)), default: 0] += try #require(row["count"] as? Int)
        }
        var actualCauses: [String: [String: Int]] = [:]
        for row in rows {
            let channel = try #require(row["channel"] as? String)
            for (field, value) in row {
                guard let count = value as? Int, count > 0,
                    Self.causeFields.contains(field) || field.hasPrefix("latency_")
                else { continue }
                actualCauses[channel, default: [:]][field] = count
            }
        }
        #expect(!expectedCauses.isEmpty)
        #expect(actualCauses == expectedCauses)
    }

    /// `report silent-loss --by dimensions` over the fleet's window: its rows' outcome counts equal
    /// the truth's (channel, platform[, browser, push service], outcome) totals summed per
    /// `dimensions` (a missing value is null). Returns the rows.
    static func expectOutcomes(
        by dimensions: [String], truth: [String: Any], fleet: SimulatedFleet,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [[String: Any]] {
        let report = try CommandRunner.run(
            ["report", "silent-loss", "--by", dimensions.joined(separator: ","), "--format", "json"] + fleet.window(),
            environment: fleet.environment)
        try #require(report.status == 0, "\(report.stderr)", sourceLocation: sourceLocation)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]])
        let key = { (row: [String: Any]) in dimensions.map { row[$0] as? String ?? "∅" }.joined(separator: "|") }
        var expected: [String: [String: Int]] = [:]
        for row in try #require(truth["outcomes"] as? [[String: Any]]) {
            let outcome = try #require(row["outcome"] as? String), count = try #require(row["count"] as? Int)
            expected[key(row), default: [:]][outcome, default: 0] += count
            expected[key(row), default: [:]]["sends", default: 0] += count
        }
        var actual: [String: [String: Int]] = [:]
        for row in rows {
            for (field, value) in row {
                guard let count = value as? Int, Self.countFields.contains(field), count > 0 else { continue }
                actual[key(row), default: [:]][field] = count
            }
        }
        #expect(!expected.isEmpty, sourceLocation: sourceLocation)
        #expect(actual == expected.mapValues { $0.filter { $0.value > 0 } }, sourceLocation: sourceLocation)
        return rows
    }

    static let causeFields: Set<String> = ["superseded", "app_stopped", "expired", "device_inactive", "unexplained"]

    static let countFields: Set<String> = [
        "sends", "rejected", "pending", "opened", "received", "blocked_app", "blocked_channel", "unconfirmed",
        "unattributed",
    ]
}
