import Foundation
import Postgres
import PushLedgerSupport
import TestSupport
import Testing

@testable import OutcomeEngine
@testable import Reports

/// Reports only read: run as a login in role pushledger_reader whose transactions are all
/// read-only, they succeed, change nothing, and say how fresh the rollups they read are.
@Suite("Reports only read")
struct ReadOnlyReportsTests {
    static let week = ISOWeek(year: 2026, week: 46)!

    /// What a refresh leaves and what waits for the next one: equal before and after a report.
    private func rollupState(_ connection: Connection) throws -> String {
        try connection.query(
            """
            select (select count(*) from rollup_inputs) + (select count(*) from rollup_dirty_days) || ' ' ||
                   (select count(*) from send_outcomes) || ' ' ||
                   (select coalesce(max(refreshed_at)::text, '-') || ' ' || count(*) from send_rollups_daily) || ' ' ||
                   (select count(*) from prompt_cohorts_daily) as state
            """)[0].decode("state")
    }

    @Test func everyReportRunsAsAReadOnlyReader() throws {
        var data = try OutcomeFixture()
        let owner = data.fixture.connection
        _ = try ReportRollups.refresh(connection: owner, asOf: OutcomeFixture.asOf)
        // An input after the refresh: a report that refreshed would take this mark.
        let install = OutcomeFixture.installation(1)
        try data.fixture.send(
            notification: Fixture.id(0x41, 1), installation: install, at: Fixture.time(2026, 11, 10, 9))
        let before = try rollupState(owner)
        // The queued inputs, counted the way the status must count them.
        let queued: Int = try owner.query(
            "select ((select count(*) from rollup_inputs) + (select count(*) from rollup_dirty_days))::int as n")[0]
            .decode("n")
        #expect(queued > 0 && before.hasPrefix("\(queued) "))

        let url = try TestDatabase.url(database: try owner.query("select current_database() as d")[0].decode("d"))
        let reader = try Connection.connect(url: try TestDatabase.readOnlyReaderURL(for: url))
        #expect(try reader.query("show transaction_read_only")[0].decode(0, as: String.self) == "on")
        #expect(throws: (any Error).self) {
            try reader.execute("insert into rollup_dirty_days (app_id, day) values ('x', '2026-11-01')")
        }

        let weekly = try WeeklyReport.run(connection: reader, app: Fixture.app, week: Self.week)
        #expect(weekly.rollups.asOf == OutcomeFixture.asOf && weekly.rollups.pendingInputs == queued)
        #expect(weekly.asOf == OutcomeFixture.asOf)
        #expect(weekly.headline.current.sends > 0)
        for format in [ReportFormat.markdown, .html, .text] {
            #expect(
                try weekly.rendered(format).contains("rollups as of 2026-11-11T12:00:00.000Z (refreshed "), "\(format)")
            #expect(
                try weekly.rendered(format).contains(
                    "\(queued) input change\(queued == 1 ? "" : "s") not yet rolled up"), "\(format)")
        }
        let json = try parse(try weekly.rendered(.json))
        #expect(
            json["rollups_as_of"] as? String == "2026-11-11T12:00:00.000Z" && json["pending_inputs"] as? Int == queued)
        #expect(json["rollups_refreshed_at"] is String)

        let query = ReportQuery(
            app: Fixture.app, from: OutcomeFixture.from, to: OutcomeFixture.to, asOf: OutcomeFixture.asOf)
        for source in ReportSource.allCases {
            let report = try SilentLossReport.run(connection: reader, query: query, by: [.channel], source: source)
            #expect(!report.rows.isEmpty, "\(source)")
        }
        _ = try SilentLossReport.quick(connection: reader, app: Fixture.app, since: 7 * 86_400, source: .auto)
        _ = try RejectionsReport.run(connection: reader, query: query)
        _ = try PromptTimingReport.run(connection: reader, query: query)
        #expect(try rollupState(owner) == before)
    }

    @Test func neverRefreshedTheReportsSaySoAndStillWork() throws {
        let data = try OutcomeFixture()
        let connection = data.fixture.connection
        let weekly = try WeeklyReport.run(connection: connection, app: Fixture.app, week: Self.week)
        let pending: Int = try connection.query(
            "select ((select count(*) from rollup_inputs) + (select count(*) from rollup_dirty_days))::int as n")[0]
            .decode("n")
        let status = weekly.rollups
        #expect(
            status.asOf == nil && status.refreshedAt == nil && status.pendingInputs == pending
                && status.lastPassSeconds == nil)
        // Never refreshed, the inputs have waited since they were written.
        #expect(pending > 0 && status.lagSeconds > 0)
        #expect(weekly.headline.current == OutcomeCounts())
        #expect(try weekly.rendered(.markdown).contains("rollups never refreshed: run `pushledger rollup`"))
        #expect(try parse(try weekly.rendered(.json))["rollups_as_of"] is NSNull)

        let query = ReportQuery(
            app: Fixture.app, from: OutcomeFixture.from, to: OutcomeFixture.to, asOf: OutcomeFixture.asOf)
        let auto = try SilentLossReport.run(connection: connection, query: query, source: .auto)
        #expect(auto.answer == .engine(reason: RollupStatus.neverRefreshedAdvice))
        #expect(
            auto.rows == (try SilentLossReport.run(connection: connection, query: query)).rows && !auto.rows.isEmpty)
        #expect(
            try auto.rendered(.table).contains(
                "answered by the outcome engine (rollups never refreshed: run `pushledger rollup`)"))
        let refused = #expect(throws: ReportError.self) {
            try SilentLossReport.run(connection: connection, query: query, source: .rollups)
        }
        #expect(
            refused?.description == "--source rollups: \(RollupStatus.neverRefreshedAdvice)"
                && refused?.kind == .invalidQuery)
    }
}
