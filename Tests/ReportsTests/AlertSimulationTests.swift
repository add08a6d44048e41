import Foundation
import IngestServer
import Postgres
import PushLedgerSupport
import Simulator
import Store
import TestSupport
import Testing

@testable import Reports

/// The regression alerts over simulated fleets posted through the real ingest server: on a
/// steady fleet the normal days before an injected regression fire nothing, and the regression
/// fires its rule for its slice once the recent window covers the injected day and not before.
///
/// The fleets are mature (`SimulationConfig.makeSteady`): `warmupDays` are simulated and posted
/// before the two reported days, and from the warm-up's third day on every day is a normal day
/// of the same fleet (SimulatorTests/SteadyFleetTests checks that over more days, without a
/// database). An injection leaves the days before it untouched (DeterminismAndInjectionTests),
/// so each fleet's days before it are its normal days: three seeds, one per scenario, keep the
/// suite at three fleets (posting ~60,000 events each is most of the cost).
@Suite("Alerts on simulated regressions")
struct AlertSimulationTests {
    static let warmupDays = 14
    static let days = 2
    /// A check at the end of day 1 has day 0 as its recent window (day 1 is the confirmation
    /// window) and days -7…-1 of the warm-up as its baseline.
    static let injectedDay = 0
    /// The first normal day judged as a recent window: its baseline starts on the warm-up's third day.
    static let firstNormalDay = -4
    /// ~500 accepted promotions per platform a day (min_volume is 200), and ~650 sends per
    /// provider, so that 1 pp of a rare reason class (token_invalid: ~3 a day) is a real rise:
    /// at 600 installs one normal day fired on 6 invalid tokens where ~2 were expected (the
    /// z-test's normal approximation at such counts gives p 0.003; the exact test 0.017).
    static let installs = 1_000

    /// The rate rules. `ingest_stale` reads the server's real receive times, which lie after
    /// every simulated check time (a check in the past sees no telemetry yet: the app is
    /// retired, not judged); it is judged apart, at the real time: quiet right after posting,
    /// firing two hours on.
    static let rules = AlertRuleSet(rules: AlertRuleKind.allCases.filter { $0 != .ingestStale }.map(AlertRule.builtIn))

    /// A simulated fleet in its own fresh database.
    struct Fleet {
        var connection: Connection
        var config: SimulationConfig

        /// The end of reported day `day` (0-based; negative: a warm-up day).
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
        var config = SimulationConfig.endingBefore(
            nowMs: Int64(Date().timeIntervalSince1970 * 1000) - 3_600_000, days: days)
        config.makeSteady(warmupDays: warmupDays)
        config.installs = installs
        config.seed = seed
        config.injections = injections
        // one telemetry request per installation (requests are the main cost); no count changes
        config.flushDays = warmupDays + days
        let telemetry = try KeyStore().create(app: config.appID, scope: .telemetry, on: connection)
        let sends = try KeyStore().create(app: config.appID, scope: .sends, on: connection)
        var serverConfig = IngestServerConfig()
        serverConfig.port = 0
        serverConfig.http.threads = 4
        serverConfig.writerCount = 3
        let server = IngestServer(
            config: serverConfig, store: PostgresIngestStore(url: url, connections: 4),
            logger: Logger(component: "serve", minimumLevel: .error) { _ in }, version: "test")
        try server.start()
        defer { server.stop() }
        var options = SimulationRunner.Options(
            baseURL: "http://127.0.0.1:\(server.port)",
            telemetryKey: telemetry.secret, sendsKey: sends.secret)
        options.progress = false
        options.threads = 8
        let (summary, _) = try SimulationRunner.run(config, options: options)
        // every event was stored, the warm-up's oldest ones too (the contract's age limit)
        #expect(summary.rejected == 0 && summary.accepted + summary.duplicates == summary.eventsPosted)

        // ingest_stale at the real time: the app has just posted, so it is judged and quiet; two
        // hours on, with nothing posted since, it fires
        let stale = AlertChecker(rules: AlertRuleSet(rules: [AlertRule.builtIn(.ingestStale)]))
        let now = try stale.check(connection: connection, at: Date())
        #expect(now.findings.count == 1 && now.firing.isEmpty, "\(describe(now.findings))")
        #expect(try stale.check(connection: connection, at: Date().addingTimeInterval(7_200)).firing.count == 1)
        // the simulated-time checks start from no alert state
        try connection.execute("delete from alert_transitions")
        try connection.execute("delete from alert_states")
        return Fleet(connection: connection, config: config)
    }

    static func describe(_ findings: [AlertFinding]) -> String {
        findings.map { f in
            "\(f.rule.rawValue) \(f.slice.label): \(f.baselineValue ?? -1) → \(f.currentValue ?? -1) "
                + "(n \(f.baselineVolume ?? 0) → \(f.currentVolume ?? 0), p \(f.pValue ?? 1))"
        }.joined(separator: "; ")
    }
}

extension AlertSimulationTests {
    /// An injected regression and the alerts it must raise.
    struct Scenario: Sendable, CustomTestStringConvertible {
        var name: String
        var seed: UInt64
        /// Days right before the injected one that it leaves untouched: with that many, a check
        /// whose recent window is the last of them must be quiet. (A receipts outage also hides
        /// the late receipts of the day before's sends: devices come back online after midnight.)
        var untouchedDaysBefore: Int
        /// (rule, slice) pairs that must fire once the injected day is recent.
        var expected: [(AlertRuleKind, AlertSlice)]
        /// Whether a firing finding is about the injected regression (anything else is a false alarm).
        var concerns: @Sendable (AlertFinding) -> Bool
        var testDescription: String { name }
    }

    static let promotions = ["android", "ios"].map { AlertSlice(["platform": $0, "channel": "promotions"]) }

    static let scenarios = [
        Scenario(
            name: "channel-block-spike", seed: 1, untouchedDaysBefore: 1,
            expected: [(.silentLossUp, promotions[0]), (.confirmedDeliveryDown, promotions[0])],
            concerns: { $0.slice == promotions[0] && [.silentLossUp, .confirmedDeliveryDown].contains($0.rule) }),
        // metrics.md: receipts are instrumented for a slice when one `notification_received` of it
        // occurred in the window, and sends of a slice that is not are `unattributed` (rule 8),
        // never silent loss. A day without 5.2.0's receipts makes 5.2.0 uninstrumented in the
        // recent window: its sends without an open are unattributed, silent loss does not rise,
        // and confirmed delivery (over all accepted sends) falls on both platforms.
        Scenario(
            name: "receipts-outage", seed: 2, untouchedDaysBefore: 2,
            expected: promotions.map { (.confirmedDeliveryDown, $0) },
            concerns: { $0.rule == .confirmedDeliveryDown }),
        Scenario(
            name: "apns-throttle-burst", seed: 3, untouchedDaysBefore: 1,
            expected: [(.rejectionsUp, AlertSlice(["provider": "apns", "reason_class": "throttled"]))],
            concerns: {
                $0.rule == .rejectionsUp && $0.slice == AlertSlice(["provider": "apns", "reason_class": "throttled"])
            }),
    ]

    @Test("quiet on normal days, then fires for the injected regression's slice", arguments: scenarios)
    func injectedRegression(scenario: Scenario) throws {
        let injection = try Injection.parse("\(scenario.name)@\(Self.injectedDay)", days: Self.days)
        let fleet = try Self.simulate(seed: scenario.seed, injections: [injection])

        // normal days are recent, up to the last one the injection leaves untouched: nothing fires
        let lastNormalDay = Self.injectedDay - scenario.untouchedDaysBefore
        for day in Self.firstNormalDay...lastNormalDay {
            let result = try fleet.check(atEndOfDay: day + 1)
            #expect(result.firing.isEmpty, "seed \(scenario.seed), day \(day) recent: \(Self.describe(result.firing))")
            #expect(result.transitions.isEmpty)
            Self.expectJudged(result)
        }

        let after = try fleet.check(atEndOfDay: Self.injectedDay + 1)
        for (rule, slice) in scenario.expected {
            let finding = after.findings.first { $0.rule == rule && $0.slice == slice }
            #expect(
                finding?.firing == true,
                "\(rule.rawValue) \(slice.label) in \(Self.describe(after.findings.filter { $0.rule == rule }))")
        }
        let unrelated = after.firing.filter { !scenario.concerns($0) }
        #expect(unrelated.isEmpty, "\(Self.describe(unrelated))")
        if scenario.name == "receipts-outage" { try Self.checkOutageDay(fleet, after) }
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

    /// Silence is not for want of data: each delivery and rejection rule judged some slice with
    /// its minimum volume. `opt_in_down` (100 first prompts a week per platform) judges both
    /// platforms too, but a steady fleet this small has ~10 new installs a day, below its volume.
    static func expectJudged(_ result: AlertCheckResult) {
        for rule in rules.enabledRules {
            let findings = result.findings.filter { $0.rule == rule.kind }
            if rule.kind == .optInDown {
                #expect(Set(findings.compactMap { $0.slice.dimensions["platform"] }) == ["android", "ios"])
            } else {
                #expect(
                    findings.contains { ($0.currentVolume ?? 0) >= rule.minVolume },
                    "\(rule.kind.rawValue) had no slice with volume \(rule.minVolume)")
            }
        }
    }

    /// What the outcome engine made of the outage day (the recent window of `after`): 5.2.0 is
    /// uninstrumented, its sends are blocked, opened or unattributed (none received or
    /// unconfirmed), so every slice with the volume to judge loses confirmed delivery and none
    /// gains silent loss.
    static func checkOutageDay(_ fleet: Fleet, _ after: AlertCheckResult) throws {
        let windows = try #require(after.findings.first?.windows)
        let rows = try fleet.connection.query(
            """
            select outcome, bool_or(instrumented) as instrumented, count(*) as n
              from pushledger_classified_sends(\(fleet.config.appID), \(windows.recentFrom), \(windows.recentTo), \
            \(after.at))
             where app_version = '5.2.0' and outcome not in ('rejected', 'pending')
             group by outcome
            """)
        var counts: [String: Int64] = [:]
        for row in rows {
            counts[try row.decode("outcome")] = try row.decode("n")
            #expect(try row.decode("instrumented", as: Bool.self) == false)
        }
        #expect(counts["unconfirmed"] == nil && counts["received"] == nil, "\(counts)")
        #expect((counts["unattributed"] ?? 0) > (counts["opened"] ?? 0) && (counts["opened"] ?? 0) > 0, "\(counts)")
        let judged = after.findings.filter { $0.rule == .confirmedDeliveryDown && ($0.currentVolume ?? 0) >= 200 }
        #expect(!judged.isEmpty && judged.allSatisfy(\.firing), "\(describe(judged))")
        #expect(!after.firing.contains { $0.rule == .silentLossUp })
    }
}
