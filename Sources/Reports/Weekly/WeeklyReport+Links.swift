import Foundation
import OutcomeEngine
import Postgres
import PushLedgerRules
import PushLedgerSupport
import TableRendering

extension WeeklyReport {
    /// Tap-through of one link host this week beside the last `pushledger links check` of it.
    public struct LinkHostRow: Sendable, Equatable {
        public var host: String
        public var landing: Landing
        public var checkedAt: Date?
        /// "pass", or the failing checks (`apple path /orders/*: not_covered; …`); nil: never checked.
        public var verdict: String?
    }

    static func linkHosts(_ connection: Connection, _ app: String, _ week: ISOWeek) throws(ReportError) -> [LinkHostRow]
    {
        try databaseStep("reading link hosts") {
            try connection.query(
                "select * from pushledger_link_host_landings(\(app), \(week.start()), \(week.end()))"
            ).map { row in
                LinkHostRow(
                    host: try row.decode("host"),
                    landing: Landing(
                        opens: try row.decode("opens"), landedReported: try row.decode("landed_reported"),
                        misrouted: try row.decode("misrouted")),
                    checkedAt: try row.decode("checked_at"), verdict: try row.decode("verdict"))
            }
        }
    }

    var linkHostTable: ReportTable {
        ReportTable(
            title: "Tap-through by link host (association check)",
            columns: [
                "link host", "opens", "reported landing", "misrouted", "misrouted rate", "last check", "last verdict",
            ],
            rows: linkHosts.map { h -> [Cell] in
                [
                    .text(h.host), .integer(h.landing.opens), .integer(h.landing.landedReported),
                    .integer(h.landing.misrouted),
                    Display.rate(h.landing.misroutedRate), h.checkedAt.map { .text(Display.day($0)) } ?? .null,
                    .text(h.verdict ?? "never checked (pushledger links check)"),
                ]
            },
            notes: [
                "last verdict: the failing checks of the latest `pushledger links check` of that host, or pass; "
                    + """
                    a host whose files do not name the app or cover the tapped path opens the browser or the \
                    fallback screen
                    """
            ])
    }

    static func linkHostJSON(_ h: LinkHostRow) -> JSONValue {
        .object([
            ("host", .string(h.host)), ("current", landingJSON(h.landing)),
            ("checked_at", .text(h.checkedAt.map(Display.timestamp))), ("verdict", .text(h.verdict)),
        ])
    }
}
