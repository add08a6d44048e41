import Foundation
import Postgres
import Synchronization
import TestSupport
import Testing

@testable import Reports

/// Alert checks against hand-built fleets in a real, migrated database.
@Suite("Alert checks on hand-built data")
struct AlertCheckTests {
    /// Only the rules under test, so a fixture's quiet end doesn't also trip ingest_stale.
    static func rules(_ kinds: AlertRuleKind...) -> AlertRuleSet {
        var set = AlertRuleSet.builtIn
        for index in set.rules.indices { set.rules[index].enabled = kinds.contains(set.rules[index].kind) }
        return set
    }

    static let deliveryRules = rules(.silentLossUp, .confirmedDeliveryDown, .rejectionsUp)

    /// Android fleet: orders and promotions steady for ten days; from day 8 promotions is
    /// blocked for 30% of the installations.
    static func channelBlockSpike() throws -> AlertFleet {
        let fleet = try AlertFleet.make()
        try fleet.sends(channel: "orders", from: 0, to: 10, perDay: 250)
        try fleet.sends(channel: "promotions", from: 0, to: 8, perDay: 250)
        try fleet.snapshot(at: AlertFleet.day(8), blockedTenths: 3, channel: "promotions")
        try fleet.sends(channel: "promotions", from: 8, to: 10, perDay: 250, blockedTenths: 3)
        return fleet
    }

    @Test("a channel-block spike fires for that channel only, once its day is out of the confirmation window")
    func channelBlockSpikeFires() throws {
        let fleet = try Self.channelBlockSpike()
        let checker = AlertChecker(rules: Self.deliveryRules)

        // Recent window [day 7, day 8): before the spike.
        let before = try checker.check(connection: fleet.connection, at: AlertFleet.day(9))
        #expect(before.firing.isEmpty)
        #expect(before.exitStatus == .noneFiring)
        #expect(before.findings.contains { $0.rule == .silentLossUp && $0.slice.dimensions["channel"] == "promotions" })

        // Recent window [day 8, day 9): the spike.
        let during = try checker.check(connection: fleet.connection, at: AlertFleet.day(10))
        #expect(during.exitStatus == .firing)
        let firing = Set(during.firing.map { "\($0.rule.rawValue) \($0.slice.label)" })
        #expect(
            firing == [
                "silent_loss_up platform=android channel=promotions",
                "confirmed_delivery_down platform=android channel=promotions",
            ])
        let silent = try #require(during.firing.first { $0.rule == .silentLossUp })
        #expect(silent.appID == "com.example.shop")
        #expect(silent.currentVolume == 250)
        #expect(silent.baselineVolume == 7 * 250)
        #expect(try #require(silent.deltaPoints) > 20)
        #expect(try #require(silent.pValue) < 1e-6)
        #expect(silent.windows?.recentFrom == AlertFleet.day(8))
        #expect(silent.windows?.baselineFrom == AlertFleet.day(1))
        let message = AlertText.message(silent, state: .firing)
        #expect(
            message.contains("pushledger report silent-loss --app com.example.shop --from 2026-11-09T00:00:00.000Z"))
        #expect(message.contains("platform=android channel=promotions"))
        #expect(during.transitions.map(\.state) == [.firing, .firing])

        let text = AlertOutput.render(during, format: .text)
        #expect(text.hasPrefix("alert check at 2026-11-11T00:00:00.000Z: 2 firing, 2 newly firing, 0 resolved\n"))
        // Each message goes on over indented lines, so every line fits a terminal.
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 120 }, "\(text)")
        #expect(text.replacingOccurrences(of: "\n    ", with: " ").contains(message), "\(text)")
        #expect(text.split(separator: "\n").count > 3)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(AlertOutput.render(during, format: .json).utf8))
                as? [String: Any])
        #expect(json["exit_status"] as? Int == 1)
        let firingJSON = try #require(json["firing"] as? [[String: Any]])
        #expect(firingJSON.count == 2)
        #expect(firingJSON.allSatisfy { $0["recent_from"] as? String == "2026-11-09T00:00:00.000Z" && $0["id"] == nil })
        #expect((json["transitions"] as? [[String: Any]])?.allSatisfy { ($0["id"] as? Int ?? 0) > 0 } == true)
    }

    @Test("a repeated check records nothing new; a quiet window resolves what fired")
    func transitionsRecordedOnce() throws {
        let fleet = try Self.channelBlockSpike()
        let checker = AlertChecker(rules: Self.deliveryRules)
        let first = try checker.check(connection: fleet.connection, at: AlertFleet.day(10))
        #expect(first.transitions.count == 2)
        let again = try checker.check(connection: fleet.connection, at: AlertFleet.day(10) + 600)
        #expect(again.transitions.isEmpty)
        #expect(again.firing.count == 2)
        #expect(try AlertStateStore.history(since: nil, connection: fleet.connection).count == 2)

        // Recent window [day 10, day 11) has no sends at all: both alerts resolve.
        let quiet = try checker.check(connection: fleet.connection, at: AlertFleet.day(12))
        #expect(quiet.exitStatus == .noneFiring)
        #expect(quiet.transitions.map(\.state) == [.resolved, .resolved])
        let history = try AlertStateStore.history(since: nil, connection: fleet.connection)
        #expect(history.map(\.state) == [.firing, .firing, .resolved, .resolved])
        #expect(try AlertStateStore.history(since: AlertFleet.day(11), connection: fleet.connection).count == 2)
        let listed = AlertOutput.render(history: history, format: .text).split(separator: "\n")
        #expect(listed.allSatisfy { $0.count <= 120 })
        let records = listed.filter { !$0.hasPrefix("    ") }
        #expect(records.count == 4 && records[0].hasPrefix("2026-11-11T00:00:00.000Z #\(history[0].id) FIRING "))
        #expect(AlertOutput.render(history: [], format: .text) == "no alert transitions\n")
        let stored = try fleet.connection.query("select count(*) as n from alert_states")
        #expect(try stored[0].decode("n", as: Int.self) == 0)
    }

    @Test("concurrent checks take turns: each transition is recorded once")
    func concurrentChecks() throws {
        let fleet = try Self.channelBlockSpike()
        let url = try TestDatabase.url(
            database: fleet.connection.query("select current_database() as d")[0].decode("d", as: String.self))
        let counts = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            let transitions = (try? Connection.connect(url: url)).flatMap {
                try? AlertChecker(rules: Self.deliveryRules).check(connection: $0, at: AlertFleet.day(10)).transitions
                    .count
            }
            counts.withLock { $0.append(transitions ?? -1) }
        }
        #expect(counts.withLock { $0.sorted() } == [0, 0, 2])
        #expect(try AlertStateStore.history(since: nil, connection: fleet.connection).count == 2)
    }

    /// A burst of sends that cannot confirm (FCM notification messages, no receipt) leaves silent
    /// loss and confirmed delivery where they were; the same burst as data messages is loss.
    @Test("a rise of unconfirmable sends alone fires nothing", arguments: [("notification", false), ("data", true)])
    func unconfirmableRiseIsQuiet(_ kind: String, fires: Bool) throws {
        let fleet = try AlertFleet.make()
        try fleet.sends(channel: "orders", from: 0, to: 10, perDay: 250)
        try fleet.sends(channel: "orders", from: 8, to: 9, perDay: 400, silentPermille: 1000, messageKind: kind)
        let result = try AlertChecker(rules: Self.deliveryRules).check(
            connection: fleet.connection, at: AlertFleet.day(10))
        let delivery = result.firing.filter { [.silentLossUp, .confirmedDeliveryDown].contains($0.rule) }
        #expect(delivery.isEmpty == !fires, "\(kind): \(delivery.map { AlertText.message($0, state: .firing) })")
    }

    @Test("stable weeks fire nothing")
    func stableDataIsSilent() throws {
        let fleet = try AlertFleet.make()
        try fleet.sends(channel: "orders", from: 0, to: 12, perDay: 250)
        try fleet.sends(channel: "promotions", from: 0, to: 12, perDay: 220, silentPermille: 60, rejectPermille: 8)
        let checker = AlertChecker(rules: Self.deliveryRules)
        for day in [8.0, 9, 10, 11.5, 12] {
            let result = try checker.check(connection: fleet.connection, at: AlertFleet.day(day))
            #expect(result.firing.isEmpty, "day \(day): \(result.firing.map { AlertText.message($0, state: .firing) })")
        }
        #expect(try AlertStateStore.history(since: nil, connection: fleet.connection).isEmpty)
    }

    @Test("an APNs throttling burst fires rejections_up for apns/throttled only")
    func throttlingBurstFires() throws {
        let fleet = try AlertFleet.make(app: "com.example.news", platform: "ios")
        try fleet.sends(
            channel: "breaking", from: 0, to: 8, perDay: 250, provider: "apns", rejectPermille: 5,
            rejectReason: "TooManyRequests")
        try fleet.sends(
            channel: "breaking", from: 8, to: 10, perDay: 250, provider: "apns", rejectPermille: 60,
            rejectReason: "TooManyRequests")
        let result = try AlertChecker(rules: Self.deliveryRules).check(
            connection: fleet.connection, at: AlertFleet.day(10))
        #expect(result.firing.map(\.rule) == [.rejectionsUp])
        #expect(result.firing.first?.slice == AlertSlice(["provider": "apns", "reason_class": "throttled"]))
        #expect(result.firing.first?.currentVolume == 250)
        #expect(result.findings.filter { $0.rule == .rejectionsUp }.count == 6)  // every reason class judged
        let quiet = try AlertChecker(rules: Self.deliveryRules).check(
            connection: fleet.connection, at: AlertFleet.day(9))
        #expect(quiet.firing.isEmpty)
    }

    @Test("opt-in falling over a week fires opt_in_down for the app and platform")
    func optInDropFires() throws {
        let fleet = try AlertFleet.make(app: "com.example.game", platform: "ios", installations: 10)
        try fleet.prompts(from: 0, to: 35, perDay: 30, grantedPercent: 60)
        try fleet.prompts(from: 35, to: 43, perDay: 30, grantedPercent: 40)
        let checker = AlertChecker(rules: Self.rules(.optInDown))
        #expect(try checker.check(connection: fleet.connection, at: AlertFleet.day(35)).firing.isEmpty)
        let result = try checker.check(connection: fleet.connection, at: AlertFleet.day(43))
        let finding = try #require(result.firing.first)
        #expect(result.firing.count == 1)
        #expect(finding.rule == .optInDown)
        #expect(finding.slice == AlertSlice(["platform": "ios"]))
        #expect(finding.currentVolume == 7 * 30)
        #expect(finding.baselineVolume == 28 * 30)
        #expect(abs(try #require(finding.deltaPoints) + 20) < 0.5)
    }

    @Test("ingest_stale fires after the threshold and retires apps silent for over 7 days")
    func ingestStaleness() throws {
        let fleet = try AlertFleet.make(installations: 5)  // telemetry received at day 0 only
        let checker = AlertChecker(rules: Self.rules(.ingestStale))
        let fresh = try checker.check(connection: fleet.connection, at: AlertFleet.day(0) + 30 * 60)
        #expect(fresh.firing.isEmpty)
        #expect(fresh.findings.count == 1)
        let stale = try checker.check(connection: fleet.connection, at: AlertFleet.day(0) + 2 * 3600)
        #expect(stale.firing.map(\.appID) == ["com.example.shop"])
        #expect(stale.firing.first?.currentValue == 120)
        #expect(stale.transitions.first?.message.contains("120 min ago (threshold 60 min)") == true)
        let retired = try checker.check(connection: fleet.connection, at: AlertFleet.day(8))
        #expect(retired.findings.isEmpty)
        #expect(retired.transitions.map(\.state) == [.resolved])
        #expect(retired.transitions.first?.message.contains("retired") == true)
    }

    @Test("ingest_stale at a past --at uses only what was received by then")
    func ingestStalenessInThePast() throws {
        let fleet = try AlertFleet.make(installations: 5)
        // The installations now say day 5.
        try fleet.snapshot(at: AlertFleet.day(5), blockedTenths: 0, channel: "promotions")
        let checker = AlertChecker(rules: Self.rules(.ingestStale))
        let past = try checker.check(connection: fleet.connection, at: AlertFleet.day(0) + 2 * 3600)
        #expect(past.firing.first?.currentValue == 120)
        let later = try checker.check(connection: fleet.connection, at: AlertFleet.day(5) + 600)
        #expect(later.firing.isEmpty && later.findings.first?.currentValue == 10)
    }

    @Test("a database that cannot be reached is trouble, exit 2")
    func unreachableDatabase() throws {
        let fleet = try AlertFleet.make(installations: 1)
        // The server ends this session: every later query fails as a lost connection.
        _ = try? fleet.connection.execute("select pg_terminate_backend(pg_backend_pid())")
        let outcome = AlertChecker().run(connection: fleet.connection, at: AlertFleet.day(1))
        #expect(outcome.exitStatus == .trouble)
        #expect(outcome.result == nil)
        #expect(outcome.problems.first?.kind == .database)
    }

    @Test("a check posts its transitions; a dead webhook makes it trouble (exit 2) but keeps the state")
    func checkWithWebhook() throws {
        let fleet = try Self.channelBlockSpike()
        let checker = AlertChecker(rules: Self.deliveryRules)
        func webhook(_ url: String) throws -> AlertWebhook {
            try AlertWebhook(url: url, timeout: .seconds(5), attempts: 3, backoff: .milliseconds(10))
        }
        let server = try LoopbackServer { _, _ in .status(200, "", close: true) }
        defer { server.stop() }
        var bodies: [String] { server.seen.map { String(decoding: $0.body, as: UTF8.self) } }
        let hook = try webhook(server.url + "/hooks/alerts")
        let outcome = checker.run(connection: fleet.connection, at: AlertFleet.day(10), webhook: hook)
        #expect(outcome.exitStatus == .firing)
        #expect(bodies.count == 2)
        #expect(bodies.allSatisfy { $0.contains("\"channel\":\"promotions\"") && $0.contains("\"text\":\"FIRING ") })
        // Nothing changed since: no post.
        let repeated = checker.run(connection: fleet.connection, at: AlertFleet.day(10), webhook: hook)
        #expect(bodies.count == 2)
        #expect(repeated.exitStatus == .firing)

        let resolved = try LoopbackServer.withRefusingPort { port in
            checker.run(
                connection: fleet.connection, at: AlertFleet.day(12),
                webhook: try webhook("http://127.0.0.1:\(port)/hooks/alerts"))
        }
        #expect(resolved.exitStatus == .trouble)
        #expect(resolved.result?.transitions.count == 2)
        #expect(resolved.problems.count == 2)
    }
}
