import Foundation
import Postgres
import PushLedgerSupport
import Testing

@testable import Reports

/// The tap-through section per link host: this week's misrouted rate beside the last stored
/// `links check` verdict, in Markdown and HTML.
@Suite struct WeeklyLinkHostTests {
    static let week = ISOWeek(year: 2026, week: 46)!

    @Test func eachHostShowsItsRateBesideTheLastVerdict() throws {
        let fixture = try Fixture()
        let c = fixture.connection
        let inWeek = Fixture.time(2026, 11, 10, 12)
        let opens: [(String, String?)] = [
            ("https://shop.example.com/orders/1", "fallback"), ("https://shop.example.com/orders/2", "fallback"),
            ("https://shop.example.com/chat", "target"), ("https://shop.example.com/chat", nil),
            ("https://help.example.com/faq", "target"), ("myapp://orders/9", "fallback"),
        ]
        for (link, landed) in opens {
            try c.execute(
                """
                insert into notification_opens (app_id, event_id, installation_id, platform, notification_id, action, \
                link, landed, at, occurred_at, received_at)
                values (\(Fixture.app), gen_random_uuid(), gen_random_uuid(), 'ios', gen_random_uuid(), 'default', \
                \(link), \(landed), \(inWeek), \(inWeek), \(inWeek))
                """)
        }
        // Outside the week: not counted.
        try c.execute(
            """
            insert into notification_opens (app_id, event_id, installation_id, platform, notification_id, action, \
            link, landed, at, occurred_at, received_at)
            values (\(Fixture.app), gen_random_uuid(), gen_random_uuid(), 'ios', gen_random_uuid(), 'default', \
            'https://shop.example.com/x', 'target',
                    \(Fixture.time(2026, 11, 2)), \(Fixture.time(2026, 11, 2)), \(Fixture.time(2026, 11, 2)))
            """)
        let older = Fixture.time(2026, 11, 11), newer = Fixture.time(2026, 11, 12)
        for (at, check, subject, verdict, passed) in [
            (older, "apple file", "", "missing", false), (newer, "apple file", "", "ok", true),
            (newer, "apple path", "/orders/*", "not_covered", false), (newer, "apple path", "/chat", "covered", true),
        ] {
            try c.execute(
                """
                insert into link_check_results (app_id, checked_at, domain, check_name, subject, verdict, passed, \
                detail)
                values (\(Fixture.app), \(at), 'shop.example.com', \(check), \(subject), \(verdict), \(passed), 'd')
                """)
        }
        let report = try WeeklyReport.refreshed(connection: c, app: Fixture.app, week: Self.week)
        #expect(report.linkHosts.map(\.host) == ["shop.example.com", "help.example.com"])
        let shop = report.linkHosts[0]
        #expect(shop.landing == WeeklyReport.Landing(opens: 4, landedReported: 3, misrouted: 2))
        #expect(shop.verdict == "apple path /orders/*: not_covered")
        #expect(shop.checkedAt == newer)
        #expect(report.linkHosts[1].verdict == nil)
        for format in [ReportFormat.markdown, .html] {
            let text = try report.rendered(format)
            let line = try #require(text.split(separator: "\n").first { $0.contains("shop.example.com") }, "\(format)")
            #expect(
                line.contains("66.7") && line.contains("apple path /orders/") && line.contains("covered"),
                "\(format): \(line)")
            #expect(text.contains("never checked"), "\(format)")
        }
    }
}
