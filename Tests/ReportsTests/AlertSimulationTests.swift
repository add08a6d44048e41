import Foundation
import IngestServer
import Postgres
import PushLedgerCore
import Simulator
import Store
import Testing
import TestSupport
@testable import Reports

/// The regression alerts over simulated fleets posted through the real ingest server: each
/// injected regression fires its rule for its slice once the recent window covers the injected
/// day and not before, and normal weeks fire nothing.
///
/// Disabled: it fails today for a reason outside the test (see the alertsim report of
/// 2026-11-30). The simulated fleet is not in steady state, so normal days raise silent_loss_up
/// for promotions (android 28.8% -> 36.8%, ios 49.6% -> 61.0%, p < 0.003) and rejections_up for
/// apns token_invalid (0.40% -> 1.61%, p 0.0007); and 800 installs x 10 days x 6 fleets takes
/// 6.7 min on 2 cores. Enable once the simulator has a steady-state fleet and a cheaper size.
@Suite("Alerts on simulated regressions", .disabled("simulated fleet drifts: false alarms on normal days; too slow"))
struct AlertSimulationTests {
    /// Ten days: a check at the end of day 9 has day 7 as its recent window and days 0–6 as its
    /// baseline; at the end of day 10, day 8 (the injected day) is recent.
    static let days = 10
    static let injectedDay = 8
    static let installs = 800

    /// The rate rules only: `ingest_stale` reads the server's real receive times, which lie
    /// after every simulated check time (so it never has anything to judge here).
    static let rules = AlertRuleSet(rules: AlertRuleKind.allCases.filter { $0 != .ingestStale }.map(AlertRule.builtIn))

    /// A simulated fleet in its own fresh database.
    struct Fleet {
        var connection: Connection
        var config: SimulationConfig

        /// The end of simulated day `day` (0-based), i.e. the start of day `day + 1`.
        func endOfDay(_ day: Int) -> Date {
            Date(timeIntervalSince1970: Double(config.startMs + Int64(day + 1) * 86_400_000) / 1000)
        }

        func check(atEndOfDay day: Int) throws -> AlertCheckResult {
            try AlertChecker(rules: AlertSimulationTests.rules).check(connection: connection, at: endOfDay(day))
        }
    }

    /// Posts a fleet through an in-process server on port 0 and a fresh database.
    static func simulate(seed: UInt64, injections: [Injection] = []) throws -> Fleet {
        let url = try TestDatabase.fresh(prefix: "alertsim")
        let connection = try Connection.connect(url: url)
        // ends before the current UTC day, so every event is within the contract's age limit
        var config = SimulationConfig.endingBefore(nowMs: Int64(Date().timeIntervalSince1970 * 1000) - 3_600_000, days: days)
        config.installs = installs
        config.seed = seed
        config.injections = injections
        let telemetry = try KeyStore().create(app: config.appID, scope: .telemetry, on: connection)
        let sends = try KeyStore().create(app: config.appID, scope: .sends, on: connection)
        var serverConfig = IngestServerConfig()
        serverConfig.port = 0
        serverConfig.httpThreads = 2
        serverConfig.writerCount = 2
        let server = IngestServer(config: serverConfig, store: PostgresIngestStore(url: url, connections: 3),
                                  logger: Logger(component: "serve", minimumLevel: .error) { _ in }, version: "test")
        try server.start()
        defer { server.stop() }
        var options = SimulationRunner.Options(baseURL: "http://127.0.0.1:\(server.port)",
                                               telemetryKey: telemetry.secret, sendsKey: sends.secret)
        options.progress = false
        options.threads = 2
        _ = try SimulationRunner.run(config, options: options)
        return Fleet(connection: connection, config: config)
    }

    /// An injected regression and the alerts it must raise.
    struct Scenario: Sendable, CustomTestStringConvertible {
        var name: String
        /// (rule, slice) pairs that must fire once the injected day is recent.
        var expected: [(AlertRuleKind, [String: String])]
        /// Whether a firing finding is about the injected regression (anything else is a false alarm).
        var concerns: @Sendable (AlertFinding) -> Bool
        var testDescription: String { name }
    }

    static let scenarios = [
        Scenario(
            name: "channel-block-spike",
            expected: [(.silentLossUp, ["platform": "android", "channel": "promotions"]),
                       (.confirmedDeliveryDown, ["platform": "android", "channel": "promotions"])],
            concerns: { $0.slice.dimensions["platform"] == "android" && $0.slice.dimensions["channel"] == "promotions" }),
        Scenario(
            name: "receipts-outage",
            expected: [(.confirmedDeliveryDown, ["platform": "ios", "channel": "promotions"])],
            concerns: { [.confirmedDeliveryDown, .silentLossUp].contains($0.rule) }),
        Scenario(
            name: "apns-throttle-burst",
            expected: [(.rejectionsUp, ["provider": "apns", "reason_class": "throttled"])],
            concerns: { $0.rule == .rejectionsUp && $0.slice.dimensions == ["provider": "apns", "reason_class": "throttled"] }),
    ]

    static func describe(_ findings: [AlertFinding]) -> String {
        findings.map { f in
            "\(f.rule.rawValue) \(f.slice.label): \(f.baselineValue ?? -1) → \(f.currentValue ?? -1) "
                + "(n \(f.baselineVolume ?? 0) → \(f.currentVolume ?? 0), p \(f.pValue ?? 1))"
        }.joined(separator: "; ")
    }

    @Test(arguments: scenarios)
    func injectedRegressionFiresForItsSliceOnceItIsRecent(scenario: Scenario) throws {
        let injection = try Injection.parse("\(scenario.name)@\(Self.injectedDay)", days: Self.days)
        let fleet = try Self.simulate(seed: 7, injections: [injection])

        // the day before the injection is recent: a normal week, nothing fires
        let before = try fleet.check(atEndOfDay: Self.injectedDay)
        #expect(before.firing.isEmpty, "\(Self.describe(before.firing))")
        #expect(before.transitions.isEmpty)

        let after = try fleet.check(atEndOfDay: Self.injectedDay + 1)
        for (rule, slice) in scenario.expected {
            let finding = after.findings.first { $0.rule == rule && $0.slice == AlertSlice(slice) }
            #expect(finding?.firing == true, "\(rule.rawValue) \(AlertSlice(slice).label) in \(Self.describe(after.firing))")
        }
        let unrelated = after.firing.filter { !scenario.concerns($0) }
        #expect(unrelated.isEmpty, "\(Self.describe(unrelated))")
        // one firing transition per firing slice, recorded by this check
        #expect(after.transitions.count == after.firing.count)
        #expect(after.transitions.allSatisfy { $0.state == .firing })

        // transitions are recorded once: the same check again changes nothing
        let again = try fleet.check(atEndOfDay: Self.injectedDay + 1)
        #expect(again.transitions.isEmpty)
        #expect(Set(again.firing.map(\.slice)) == Set(after.firing.map(\.slice)))
        let stored = try fleet.connection.query("select count(*) as n from alert_transitions")
        #expect(try stored.first?.decode("n", as: Int64.self) == Int64(after.firing.count))
    }

    @Test("normal simulated weeks fire nothing", arguments: [UInt64(1), 2, 3])
    func normalWeeksFireNothing(seed: UInt64) throws {
        let fleet = try Self.simulate(seed: seed)
        for day in Self.days - 3..<Self.days {
            let result = try fleet.check(atEndOfDay: day)
            #expect(result.firing.isEmpty, "seed \(seed), end of day \(day): \(Self.describe(result.firing))")
            // each rule judged some slice with enough volume, so silence is not for want of data
            for rule in Self.rules.enabledRules {
                let judged = result.findings.filter { $0.rule == rule.kind && ($0.currentVolume ?? 0) >= rule.minVolume }
                #expect(!judged.isEmpty, "\(rule.kind.rawValue) had no slice with volume \(rule.minVolume)")
            }
        }
    }
}
