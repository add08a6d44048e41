import Foundation
import Postgres
import PushLedgerRules
import PushLedgerSupport
import Testing

@testable import OutcomeEngine
@testable import Reports

@Suite("Weekly report over rollups")
struct WeeklyReportTests {
    static let week = ISOWeek(year: 2026, week: 46)!  // Monday 9 November 2026: the outcome fixture's days

    /// The week's own classification (one window, receipt instrumentation judged over the week).
    private func weekClassification(
        _ connection: Connection, asOf: Date, week: ISOWeek = Self.week
    )
        throws -> (total: OutcomeCounts, byChannel: [String: OutcomeCounts])
    {
        let query = ReportQuery(app: Fixture.app, from: week.start(), to: week.end(), asOf: asOf)
        var byChannel: [String: OutcomeCounts] = [:]
        var total = OutcomeCounts()
        for row in try SilentLossReport.run(connection: connection, query: query, by: [.channel]).rows {
            let channel = try #require(row.values[.channel] ?? nil)
            // The weekly sections read outcome counts; causes are the report's own section.
            var counts = row.counts
            counts.causes = nil
            byChannel[channel] = counts
            total = add(total, counts)
        }
        return (total, byChannel)
    }

    /// The outcome counts alone (the week's classification below reads no causes).
    static func outcomes(_ counts: OutcomeCounts) -> OutcomeCounts {
        var counts = counts
        counts.causes = nil
        return counts
    }

    @Test func headlineAndSlicesEqualTheWeeksClassification() throws {
        let data = try OutcomeFixture()
        let connection = data.fixture.connection
        let report = try WeeklyReport.refreshed(connection: connection, app: Fixture.app, week: Self.week)
        let (total, byChannel) = try weekClassification(connection, asOf: report.asOf)
        // The fixture's window plus its send after the fixture's as_of (this report is as of now).
        #expect(total.sends == data.expected.count + 1)
        #expect(Self.outcomes(report.headline.current) == total)
        // Its causes partition its unconfirmed sends (their figures: CauseTruthFleetTests).
        let causes = try #require(report.headline.current.causes)
        #expect(UnconfirmedCause.allCases.map { causes.count($0) }.reduce(0, +) == total.unconfirmed)
        // The fixture's one send before its window (Sunday 8 November, 23:00) is last week's.
        #expect(report.headline.previous.sends == 1)
        #expect(
            Dictionary(uniqueKeysWithValues: report.channels.map { ($0.name, Self.outcomes($0.current)) }) == byChannel)
        #expect(report.platforms.map(\.name) == ["android", "ios"])
        #expect(report.platforms.map(\.current.sends).reduce(0, +) == total.sends)

        let rejections = try RejectionsReport.run(
            connection: connection,
            query: ReportQuery(app: Fixture.app, from: Self.week.start(), to: Self.week.end(), asOf: report.asOf))
        #expect(
            report.rejections.map { "\($0.provider) \($0.reason ?? "-") \($0.current)" }.sorted()
                == Dictionary(grouping: rejections.reasons, by: { "\($0.provider) \($0.reason ?? "-")" })
                .map { "\($0.key) \($0.value.map(\.rejected).reduce(0, +))" }.sorted())
        #expect(report.headline.current.tokenInvalid == 4 && report.headline.current.toInvalidToken == 1)
        // Three opens of orders/order_update: one landed on the fallback screen, two on their target.
        #expect(
            report.landings == [
                WeeklyReport.LandingRow(
                    channel: "orders", campaign: "order_update",
                    current: .init(opens: 3, landedReported: 3, misrouted: 1), previous: .init())
            ])
        #expect(report.promptTiming.cohorts.isEmpty)
        #expect(report.alerts == [])  // alerting is set up (migration 0030) and nothing fired
        #expect(Set(report.trend.map(\.week)) == [Self.week.previous, Self.week])
    }

    /// A slice that reported receipts on Wednesday only: its Monday send with a known state is
    /// `unconfirmed` for the week although Monday's own rollup calls it `unattributed`.
    @Test func instrumentationIsJudgedOverTheWeekNotPerDay() throws {
        var fixture = try Fixture()
        let device = Fixture.id(0x1a, 1), other = Fixture.id(0x1a, 2)
        for id in [device, other] {
            try fixture.installation(id, platform: "ios", firstSeen: Fixture.time(2026, 11, 1))
            try fixture.snapshot(
                id, at: Fixture.time(2026, 11, 1), platform: "ios", authorization: "authorized",
                alert: "enabled", lockScreen: "enabled", center: "enabled")
        }
        try fixture.send(
            notification: Fixture.id(0x40, 1), installation: device, at: Fixture.time(2026, 11, 9, 10), provider: "apns"
        )
        let confirmed = Fixture.id(0x40, 2)
        try fixture.send(
            notification: confirmed, installation: other, at: Fixture.time(2026, 11, 11, 10), provider: "apns")
        try fixture.receipt(confirmed, installation: other, at: Fixture.time(2026, 11, 11, 10, 1), platform: "ios")
        let report = try WeeklyReport.refreshed(connection: fixture.connection, app: Fixture.app, week: Self.week)
        let daily: Int = try fixture.connection.query(
            "select sum(unattributed)::int as n from send_rollups_daily where day = '2026-11-09'")[0].decode("n")
        #expect(daily == 1)
        #expect(report.headline.current.unconfirmed == 1 && report.headline.current.unattributed == 0)
        #expect(report.headline.current.received == 1)
        #expect(
            Self.outcomes(report.headline.current)
                == (try weekClassification(fixture.connection, asOf: report.asOf)).total)
        #expect(report.platforms.first { $0.name == "ios" }?.current.unconfirmed == 1)
        // The week before saw no receipt: its own window keeps such a send unattributed.
        try fixture.send(
            notification: Fixture.id(0x40, 3), installation: device, at: Fixture.time(2026, 11, 3, 10), provider: "apns"
        )
        let later = try WeeklyReport.refreshed(connection: fixture.connection, app: Fixture.app, week: Self.week)
        #expect(later.headline.previous.unattributed == 1 && later.headline.previous.unconfirmed == 0)
        #expect(later.headline.current == report.headline.current)
    }

    /// The prompt-timing section reads the prompt-cohort rollups and equals the cohorts computed
    /// from the events as of the same time, for the week and the week before.
    @Test func promptTimingFromRollupsEqualsTheEvents() throws {
        let data = try PromptFixture()
        let week = ISOWeek(year: 2026, week: 45)!  // PromptFixture's window, Monday 2 November
        let report = try WeeklyReport.refreshed(connection: data.fixture.connection, app: Fixture.app, week: week)
        #expect(report.promptTiming.cohorts.count == 2 && report.promptTiming.mode == .intentToTreat)
        for (w, section) in [(week, report.promptTiming), (week.previous, report.previousPromptTiming)] {
            let direct = try PromptTimingReport.run(
                connection: data.fixture.connection,
                query: ReportQuery(app: Fixture.app, from: w.start(), to: w.end(), asOf: report.asOf),
                options: .init(includeSends: false))
            #expect(section.cohorts == direct.cohorts && section.mode == direct.mode)
        }
        #expect(report.previousPromptTiming.cohorts.isEmpty == false)
    }

    /// The week's unconfirmable sends by kind equal the fixture's, each with what makes such sends
    /// measurable; the headline says their share of accepted sends.
    @Test func cannotConfirmSaysHowMuchAndWhatToChange() throws {
        let data = try OutcomeFixture()
        let report = try WeeklyReport.refreshed(connection: data.fixture.connection, app: Fixture.app, week: Self.week)
        var expected: [String: Int] = [:]
        for e in data.expected where e.outcome == "unconfirmable" {
            expected["\(e.provider) \(e.pushType ?? "-") \(e.messageKind ?? "-")", default: 0] += 1
        }
        #expect(expected.count == 3)
        #expect(
            Dictionary(
                uniqueKeysWithValues: report.cannotConfirm.map {
                    ("\($0.provider) \($0.pushType ?? "-") \($0.messageKind ?? "-")", $0.unconfirmable)
                }) == expected)
        let changes = Dictionary(uniqueKeysWithValues: report.cannotConfirm.map { ($0.kind, $0.change) })
        #expect(changes["apns, push_type alert"]?.contains("mutable-content") == true)
        #expect(changes["fcm, message_kind notification"]?.contains("data messages") == true)
        #expect(changes["apns, push_type location"]?.contains("only a tap") == true)
        let current = report.headline.current
        #expect(current.unconfirmable == expected.values.reduce(0, +))
        #expect(current.rates[.unconfirmableRate] == Rate(current.unconfirmable, of: current.accepted))
        let text = try report.rendered(.text)
        #expect(text.contains("cannot confirm") && text.contains("Notification Service Extension"))
    }

    @Test func everyFormatHasEverySection() throws {
        let data = try OutcomeFixture()
        let report = try WeeklyReport.refreshed(connection: data.fixture.connection, app: Fixture.app, week: Self.week)
        let titles = [
            "Headline", "Cannot confirm", "Per channel", "Per platform", "Why unconfirmed", "Delivery latency",
            "Provider rejections by reason", "Token hygiene",
            "Provider says vs devices say", "Tap-through landing (misrouted opens)",
            "Tap-through by link host (association check)", "Prompt timing", "Alerts fired",
        ]
        #expect(report.sections.map(\.title) == titles)
        for format in [ReportFormat.markdown, .text, .html] {
            let text = try report.rendered(format)
            for title in titles { #expect(text.contains(SVGChart.escape(title)), "\(format) lacks \(title)") }
            #expect(text.contains("no alert fired this week"), "\(format)")
            #expect(text.contains("2026-W46"))
        }
        let json = try parse(try report.rendered(.json))
        #expect(
            Set(json.keys) == [
                "app", "week", "from", "to", "as_of", "rollups_as_of", "rollups_refreshed_at", "pending_inputs",
                "headline", "channels", "platforms", "web",
                "why_unconfirmed", "cannot_confirm", "latency", "rejections",
                "token_hygiene", "provider_check", "link_hosts", "landing", "prompt_timing",
                "prompt_timing_previous_week", "alerts", "alerts_note",
            ])
        let headline = try #require(json["headline"] as? [String: Any])
        #expect(Set(headline.keys) == ["name", "current", "previous", "change"])
        let change = try #require(headline["change"] as? [String: Any])
        #expect(change["sends"] as? Int == (data.expected.count + 1) - 1)  // 29 sends this week, 1 the week before
        let current = try #require(headline["current"] as? [String: Any]),
            previous = try #require(headline["previous"] as? [String: Any])
        #expect(
            current["unexplained_rate"] is Double && change["unexplained_rate_pp"] != nil
                && current["late_share"] != nil)
        let rates = [current, previous].map { ($0["silent_loss_rate"] as? Double) }
        #expect(abs((change["silent_loss_rate_pp"] as? Double ?? .nan) - (rates[0]! - rates[1]!) * 100) < 1e-9)
        #expect(change["open_rate_of_received_pp"] is NSNull)  // nothing received the week before
        #expect(throws: ReportError.self) { try report.rendered(.csv) }
    }

    @Test func isoWeekEdgesBoundTheWindow() throws {
        var fixture = try Fixture()
        let install = Fixture.id(0x1a, 1)
        try fixture.installation(install, platform: "android", firstSeen: Fixture.time(2020, 12, 1))
        let times = [
            Fixture.time(2020, 12, 27, 23, 59), Fixture.time(2020, 12, 28), Fixture.time(2021, 1, 3, 23, 59),
            Fixture.time(2021, 1, 4),
        ]
        for (i, time) in times.enumerated() {
            try fixture.send(notification: Fixture.id(0x40, i), installation: install, at: time)
        }
        let week53 = try ISOWeek(parsing: "2020-W53")
        let last = try WeeklyReport.refreshed(connection: fixture.connection, app: Fixture.app, week: week53)
        #expect((last.headline.current.sends, last.headline.previous.sends) == (2, 1))
        let first = try WeeklyReport.refreshed(
            connection: fixture.connection, app: Fixture.app, week: try ISOWeek(parsing: "2021-W01"))
        #expect((first.headline.current.sends, first.headline.previous.sends) == (1, 2))
        #expect(first.week.previous == week53)
        // 2026-W01 starts on Monday 29 December 2025.
        let week1 = try WeeklyReport.refreshed(
            connection: fixture.connection, app: Fixture.app, week: try ISOWeek(parsing: "2026-W01"))
        #expect(try week1.rendered(.text).contains("2025-12-29 to 2026-01-04"))
        #expect(week1.headline.current == OutcomeCounts())
    }

    @Test func rollupsRecomputeOnlyWhatChanged() throws {
        var data = try OutcomeFixture()
        let connection = data.fixture.connection
        let first = try ReportRollups.refresh(connection: connection)
        #expect(first.days.map(\.day) == ["2026-11-08", "2026-11-09", "2026-11-10", "2026-11-11"])
        #expect(first.text.contains("recomputed 4 days of 1 app"))
        #expect(try ReportRollups.refresh(connection: connection).days.isEmpty)
        /// The notification of the fixture's unconfirmed send of 9 November on `channel`.
        func unconfirmedNotification(channel: String) throws -> UUID {
            let send = try #require(
                data.expected.first { $0.outcome == "unconfirmed" && $0.day == "2026-11-09" && $0.channel == channel })
            return try #require(
                try connection.query("select notification_id from sends where event_id = \(send.event)").first?
                    .decode("notification_id"))
        }
        // A late receipt re-opens its send's day only.
        let notification = try unconfirmedNotification(channel: "misc")
        try data.fixture.receipt(
            notification, installation: OutcomeFixture.installation(1), at: Fixture.time(2026, 11, 9, 20),
            platform: "android")
        let before = try WeeklyReport.refreshed(connection: connection, app: Fixture.app, week: Self.week).headline
            .current
        // Someone else refreshes the send rollups directly; the landing rollups still catch up.
        let opened = try unconfirmedNotification(channel: "orders")
        try data.fixture.open(
            opened, installation: OutcomeFixture.installation(1), at: Fixture.time(2026, 11, 9, 21),
            platform: "android", landed: "rejected")
        #expect(
            try connection.query("select * from pushledger_refresh_rollups()").map {
                try $0.decode("refreshed_day", as: String.self)
            } == ["2026-11-09"])
        let after = try WeeklyReport.refreshed(connection: connection, app: Fixture.app, week: Self.week)
        #expect(after.headline.current.opened == before.opened + 1)
        #expect(
            after.landings.first { $0.channel == "orders" }?.current == .init(opens: 4, landedReported: 4, misrouted: 2)
        )
    }

    @Test func firedAlertsComeFromAlertTransitions() throws {
        let data = try OutcomeFixture()
        let connection = data.fixture.connection
        try connection.executeScript(
            """
            insert into alert_transitions (rule, app_id, slice, state, at, current_rate, baseline_rate, delta_pp, \
            p_value, message) values
              ('silent_loss_up', 'com.example.shop', '{"channel": "orders"}', 'firing', '2026-11-10T08:00Z', 0.2, \
            0.05, 15, 0.0001, 'orders silent loss up'),
              ('silent_loss_up', 'com.example.shop', '{"channel": "orders"}', 'resolved', '2026-11-11T08:00Z', 0.05, \
            0.05, 0, 0.5, 'resolved'),
              ('silent_loss_up', 'com.example.shop', '{"channel": "news"}', 'firing', '2026-11-16T08:00Z', 0.2, 0.05, \
            15, 0.0001, 'next week'),
              ('silent_loss_up', 'other.app', '{"channel": "orders"}', 'firing', '2026-11-10T08:00Z', 0.2, 0.05, 15, \
            0.0001, 'other app');
            """)
        let report = try WeeklyReport.refreshed(connection: connection, app: Fixture.app, week: Self.week)
        let alerts = try #require(report.alerts)
        #expect(alerts.map(\.message) == ["orders silent loss up"])
        #expect(alerts.first?.deltaPoints == 15)
        #expect(try report.rendered(.markdown).contains("orders silent loss up"))
    }

    @Test func withoutTheAlertsTableTheReportSaysAlertingIsNotSetUp() throws {
        let data = try OutcomeFixture()
        try data.fixture.connection.executeScript("drop table alert_transitions cascade")
        let report = try WeeklyReport.refreshed(connection: data.fixture.connection, app: Fixture.app, week: Self.week)
        #expect(report.alerts == nil)
        for format in [ReportFormat.markdown, .text, .html] {
            #expect(try report.rendered(format).contains("alerting not set up"))
        }
        #expect(try parse(try report.rendered(.json))["alerts"] is NSNull)
    }

    @Test func anEmptyWeekIsAnEmptyReport() throws {
        let fixture = try Fixture()
        let report = try WeeklyReport.refreshed(connection: fixture.connection, app: Fixture.app, week: Self.week)
        #expect(report.headline.current == OutcomeCounts() && report.channels.isEmpty && report.rejections.isEmpty)
        #expect(try report.rendered(.html).contains("no sends"))
        #expect(throws: ReportError.self) {
            try WeeklyReport.run(connection: fixture.connection, app: "", week: Self.week)
        }
    }

    private func add(_ a: OutcomeCounts, _ b: OutcomeCounts) -> OutcomeCounts {
        var sum = a
        for counter in OutcomeCounter.allCases { sum[counter] += b[counter] }
        return sum.withRatesOfCounts()
    }
}
