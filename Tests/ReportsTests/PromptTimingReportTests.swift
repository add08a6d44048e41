import Foundation
import Postgres
import PushLedgerRules
import Testing

@testable import OutcomeEngine
@testable import Reports

@Suite("Prompt timing cohorts")
struct PromptTimingReportTests {
    let data: PromptFixture

    init() throws { data = try PromptFixture() }

    private func check(_ report: PromptTimingReport, against expected: [String: PromptFixture.Expected]) throws {
        #expect(Set(report.cohorts.map(\.name)) == Set(expected.keys))
        for cohort in report.cohorts {
            let e = try #require(expected[cohort.name])
            #expect(cohort.installs == e.installs, "\(cohort.name) installs")
            #expect(cohort.prompted == e.prompted, "\(cohort.name) prompted")
            #expect(cohort.optIn == Rate(e.granted, of: e.prompted), "\(cohort.name) opt-in")
            #expect(cohort.provisional == Rate(e.provisional, of: e.prompted), "\(cohort.name) provisional")
            #expect(cohort.reach == Rate(e.reached, of: e.installs), "\(cohort.name) reach")
            #expect(cohort.grantedWithoutPrompt == e.grantedWithoutPrompt, "\(cohort.name) granted without prompt")
            #expect(cohort.retained7d == Rate(e.retained, of: e.retainedEligible), "\(cohort.name) retained")
            let median = try #require(cohort.medianHoursToPrompt)
            #expect(abs(median - e.median!) < 1e-9, "\(cohort.name) median")
        }
    }

    /// Recomputes the marked prompt-cohort rollups as of `asOf`; how many days it recomputed.
    private func refreshRollups(asOf: Date) throws -> Int {
        try data.fixture.connection.query("select pushledger_refresh_prompt_rollups(\(asOf)) as n")[0].decode("n")
    }

    private func fromRollups(asTreated: Bool = false, platform: String? = nil) throws -> PromptTimingReport {
        try PromptTimingReport.run(
            connection: data.fixture.connection, query: data.query,
            options: .init(asTreated: asTreated, platform: platform, includeSends: false, fromRollups: true))
    }

    @Test func rollupsHoldTheSameCohortsAsTheEvents() throws {
        #expect(try refreshRollups(asOf: PromptFixture.asOf) > 0)
        for asTreated in [false, true] {
            for platform in [nil, "ios", "android"] {
                let report = try fromRollups(asTreated: asTreated, platform: platform)
                #expect(report.mode == (asTreated ? .asTreated : .intentToTreat) && !report.fellBack)
                try check(report, against: data.expected(asTreated: asTreated, platform: platform))
            }
        }
        // Members' events dated after as_of keep their installations marked until a refresh as
        // of their time: again as of the same time they are recomputed and nothing moves; as of
        // a time past every event their days move, and then nothing is left to recompute.
        #expect(
            try data.fixture.connection.query("select count(*)::int as n from prompt_rollup_dirty_installations")[0]
                .decode("n", as: Int.self) > 0)
        #expect(try refreshRollups(asOf: PromptFixture.asOf) == 0)
        let future = Fixture.time(2027, 6, 1)
        #expect(try refreshRollups(asOf: future) > 0)
        #expect(try refreshRollups(asOf: future) == 0)
    }

    /// Late events re-open the days of their installation's membership, and an event dated after
    /// the refresh's as_of counts once a refresh as of its time runs.
    @Test func lateEventsReopenTheirMembersDays() throws {
        var data = data
        _ = try refreshRollups(asOf: PromptFixture.asOf)
        let reached = try #require(
            data.installs.firstIndex { install in
                PromptFixture.cohort(install, asTreated: false) != nil
                    && PromptFixture.canDisplay(install, at: PromptFixture.asOf)
            })
        let install = data.installs[reached]
        // Turned off a day before as_of: reach falls by one in its cohort.
        let off = PromptFixture.asOf.addingTimeInterval(-86_400)
        if install.platform == "ios" {
            try data.fixture.snapshot(install.id, at: off, platform: "ios", authorization: "denied", alert: "disabled")
        } else {
            try data.fixture.snapshot(install.id, at: off, platform: "android", enabled: false)
        }
        data.installs[reached].snapshots.append(.init(at: off, canDisplay: false))
        data.installs[reached].snapshots.sort { $0.at < $1.at }
        #expect(try refreshRollups(asOf: PromptFixture.asOf) > 0)
        try check(try fromRollups(), against: data.expected(asTreated: false))

        // A new exposure of a never-exposed installation, dated an hour after as_of: not yet a member.
        let newcomer = try #require(
            data.installs.firstIndex { $0.exposures.isEmpty && $0.firstSeen < PromptFixture.to })
        let late = PromptFixture.asOf.addingTimeInterval(3600)
        try data.fixture.exposure(
            data.installs[newcomer].id, at: late, variant: "first_screen",
            platform: data.installs[newcomer].platform)
        let lateWeek = ReportQuery(
            app: Fixture.app, from: Fixture.time(2026, 11, 23), to: Fixture.time(2026, 11, 30), asOf: late)
        let rolledOptions = PromptTimingReport.Options(includeSends: false, fromRollups: true)
        _ = try refreshRollups(asOf: PromptFixture.asOf)
        #expect(
            try PromptTimingReport.run(connection: data.fixture.connection, query: lateWeek, options: rolledOptions)
                .cohorts.isEmpty)
        #expect(try refreshRollups(asOf: late) > 0)
        let direct = try PromptTimingReport.run(
            connection: data.fixture.connection, query: lateWeek, options: .init(includeSends: false))
        let rolled = try PromptTimingReport.run(
            connection: data.fixture.connection, query: lateWeek, options: rolledOptions)
        #expect(rolled.cohorts.map(\.installs) == [1] && rolled.cohorts == direct.cohorts)
    }

    /// Each (experiment or as-treated, day)'s refresh time, as text.
    private func refreshTimes() throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try data.fixture.connection.query(
            """
            select coalesce(experiment, '-') || ' ' || day::text as day, max(refreshed_at)::text as at
              from prompt_cohorts_daily group by 1
            """)
        {
            result[try row.decode("day")] = try row.decode("at")
        }
        return result
    }

    /// A new snapshot of one member moves that member's days only: its exposure day and its
    /// first prompt's day; every other day keeps its rollups untouched.
    @Test func oneSnapshotMovesOnlyItsMembersDays() throws {
        var data = data
        _ = try refreshRollups(asOf: PromptFixture.asOf)
        let off = PromptFixture.asOf.addingTimeInterval(-3600)
        let index = try #require(
            data.installs.firstIndex { install in
                !install.exposures.isEmpty && PromptFixture.firstSystemPrompt(install) != nil
                    && PromptFixture.canDisplay(install, at: PromptFixture.asOf)
                    && !install.snapshots.contains { $0.at > off }
            })
        let install = data.installs[index]
        let day = { (time: Date) in String(Display.timestamp(time).prefix(10)) }
        let exposed = try #require(install.exposures.map(\.at).min())
        let prompted = try #require(PromptFixture.firstSystemPrompt(install)).at
        let before = try refreshTimes()
        if install.platform == "ios" {
            try data.fixture.snapshot(install.id, at: off, platform: "ios", authorization: "denied", alert: "disabled")
        } else {
            try data.fixture.snapshot(install.id, at: off, platform: "android", enabled: false)
        }
        data.installs[index].snapshots.append(.init(at: off, canDisplay: false))
        #expect(try refreshRollups(asOf: PromptFixture.asOf) == 2)
        let after = try refreshTimes()
        #expect(Set(before.keys) == Set(after.keys))
        #expect(
            Set(after.keys.filter { before[$0] != after[$0] }) == [
                "push_prompt_timing \(day(exposed))", "- \(day(prompted))",
            ])
        try check(try fromRollups(), against: data.expected(asTreated: false))
        try check(try fromRollups(asTreated: true), against: data.expected(asTreated: true))

        // The same state reported again changes no member: the installation is recomputed, nothing moves.
        if install.platform == "ios" {
            try data.fixture.snapshot(install.id, at: off, platform: "ios", authorization: "denied", alert: "disabled")
        } else {
            try data.fixture.snapshot(install.id, at: off, platform: "android", enabled: false)
        }
        #expect(try refreshRollups(asOf: PromptFixture.asOf) == 0)
        #expect(try refreshTimes() == after)
    }

    @Test func rollupsCoverWholeDaysAndNoSends() throws {
        #expect(throws: ReportError.self) {
            try PromptTimingReport.run(
                connection: data.fixture.connection, query: data.query, options: .init(fromRollups: true))
        }
        var query = data.query
        query.from = query.from.addingTimeInterval(3600)
        #expect(throws: ReportError.self) {
            try PromptTimingReport.run(
                connection: data.fixture.connection, query: query,
                options: .init(includeSends: false, fromRollups: true))
        }
    }

    @Test func intentToTreatCohortsMatchTheirDefinitions() throws {
        let report = try PromptTimingReport.run(connection: data.fixture.connection, query: data.query)
        #expect(report.mode == .intentToTreat && !report.fellBack)
        #expect(report.cohorts.count == 2)
        try check(report, against: data.expected(asTreated: false))
        #expect(report.cohorts.allSatisfy { $0.prompted <= $0.installs })
        #expect(report.cohorts.contains { $0.grantedWithoutPrompt > 0 })
        #expect(report.cohorts.contains { $0.retained7d.denominator > 0 })
    }

    @Test func asTreatedCohortsAreFirstPromptPlacements() throws {
        let report = try PromptTimingReport.run(
            connection: data.fixture.connection, query: data.query,
            options: .init(asTreated: true))
        #expect(report.mode == .asTreated && !report.fellBack)
        try check(report, against: data.expected(asTreated: true))
        #expect(report.cohorts.allSatisfy { $0.installs == $0.prompted && $0.grantedWithoutPrompt == 0 })
    }

    @Test func platformNarrowsTheCohorts() throws {
        let report = try PromptTimingReport.run(
            connection: data.fixture.connection, query: data.query,
            options: .init(platform: "ios"))
        try check(report, against: data.expected(asTreated: false, platform: "ios"))
    }

    @Test func comparisonsUseTheBaselineCohort() throws {
        let report = try PromptTimingReport.run(connection: data.fixture.connection, query: data.query)
        #expect(report.baseline == "first_screen")
        let base = try #require(report.baselineCohort)
        #expect(report.comparisons(base) == nil)
        let other = try #require(report.cohorts.first { $0.name == "after_first_order" })
        let list = try #require(report.comparisons(other))
        #expect(list.map(\.name) == ["opt_in_rate", "provisional_rate", "reach_rate", "retained_7d"])
        let optIn = list[0].comparison
        let expectedDiff = (other.optIn.value! - base.optIn.value!) * 100
        #expect(abs(optIn.differencePoints! - expectedDiff) < 1e-9)
        // The pooled z-test by hand.
        let (x1, n1, x2, n2) = (
            Double(other.optIn.numerator), Double(other.optIn.denominator),
            Double(base.optIn.numerator), Double(base.optIn.denominator)
        )
        let pooled = (x1 + x2) / (n1 + n2)
        let z = (x1 / n1 - x2 / n2) / (pooled * (1 - pooled) * (1 / n1 + 1 / n2)).squareRoot()
        let p = erfc(abs(z) / 2.0.squareRoot())
        #expect(abs(optIn.pValue! - p) < 1e-9)
        #expect(optIn.insufficientData == (n1 < 30 || n2 < 30))
        let retained = list[3].comparison
        #expect(retained.insufficientData == (other.retained7d.denominator < 30 || base.retained7d.denominator < 30))

        let explicit = try PromptTimingReport.run(
            connection: data.fixture.connection, query: data.query,
            options: .init(baseline: "after_first_order"))
        #expect(explicit.baseline == "after_first_order" && explicit.comparisons(other) == nil)
    }

    @Test func jsonHasTheIssueShape() throws {
        let report = try PromptTimingReport.run(connection: data.fixture.connection, query: data.query)
        let json = try parse(report.json.jsonText)
        #expect(Set(json.keys) == ["from", "to", "as_of", "mode", "note", "baseline", "cohorts"])
        #expect(json["mode"] as? String == "intent_to_treat")
        let cohorts = try #require(json["cohorts"] as? [[String: Any]])
        for cohort in cohorts {
            #expect(
                Set(cohort.keys) == [
                    "cohort", "installs", "prompted", "opt_in_rate", "opt_in_ci", "provisional_rate", "reach_rate",
                    "reach_ci",
                    "granted_without_prompt", "retained_7d", "median_hours_to_prompt", "open_rate", "silent_loss_rate",
                    "vs_baseline",
                ])
            let ci = try #require(cohort["opt_in_ci"] as? [Double])
            let rate = try #require(cohort["opt_in_rate"] as? Double)
            #expect(ci.count == 2 && ci[0] <= rate && rate <= ci[1])
            if cohort["cohort"] as? String == "first_screen" {
                #expect(cohort["vs_baseline"] is NSNull)
            } else {
                let versus = try #require(cohort["vs_baseline"] as? [String: [String: Any]])
                #expect(Set(versus.keys) == ["opt_in_rate", "provisional_rate", "reach_rate", "retained_7d"])
                #expect(Set(versus["reach_rate"]!.keys) == ["diff_pp", "p_value", "insufficient_data"])
            }
        }
    }

    @Test func downstreamRatesCountTheCohortsSends() throws {
        var fixture = data.fixture
        let members = data.installs.filter { PromptFixture.cohort($0, asTreated: false) != nil }
        for (i, install) in members.enumerated() {
            let notification = Fixture.id(0x41, i)
            try fixture.send(notification: notification, installation: install.id, at: Fixture.time(2026, 11, 8, 12))
            if i % 4 == 0 {
                try fixture.open(
                    notification, installation: install.id, at: Fixture.time(2026, 11, 8, 13),
                    platform: install.platform)
            }
            if i % 4 == 1 {
                try fixture.receipt(
                    notification, installation: install.id, at: Fixture.time(2026, 11, 8, 13),
                    platform: install.platform)
            }
        }
        let report = try PromptTimingReport.run(connection: fixture.connection, query: data.query)
        let outcomes = try fixture.connection.query(
            """
            select installation_id, outcome from pushledger_classified_sends(\(Fixture.app), \(PromptFixture.from),
                   \(PromptFixture.to), \(PromptFixture.asOf))
            """)
        var byCohort: [String: (accepted: Int, opened: Int, silent: Int)] = [:]
        for row in outcomes {
            let id: UUID = try row.decode("installation_id")
            let outcome: String = try row.decode("outcome")
            let cohort = try #require(PromptFixture.cohort(members.first { $0.id == id }!, asTreated: false))
            var t = byCohort[cohort, default: (0, 0, 0)]
            if outcome != "rejected" && outcome != "pending" { t.accepted += 1 }
            if outcome == "opened" { t.opened += 1 }
            if ["blocked_app", "blocked_channel", "unconfirmed"].contains(outcome) { t.silent += 1 }
            byCohort[cohort] = t
        }
        #expect(byCohort.values.contains { $0.silent > 0 })
        for cohort in report.cohorts {
            let t = try #require(byCohort[cohort.name])
            #expect(cohort.openRate == Rate(t.opened, of: t.accepted))
            #expect(cohort.silentLossRate == Rate(t.silent, of: t.accepted))
        }
    }

    @Test func fallsBackToAsTreatedAndSaysSoEverywhere() throws {
        let report = try PromptTimingReport.run(
            connection: data.fixture.connection, query: data.query,
            options: .init(experiment: "never_run"))
        #expect(report.mode == .asTreated && report.fellBack)
        try check(report, against: data.expected(asTreated: true))
        #expect(try parse(report.json.jsonText)["mode"] as? String == "as_treated")
        for format in [ReportFormat.table, .markdown, .json] {
            #expect(try report.rendered(format).contains("fallback"), "\(format)")
        }
        #expect(try report.rendered(.csv).contains("\r\nas_treated,"))
    }

    @Test func badOptionsAreRefused() throws {
        #expect(throws: ReportError.self) {
            try PromptTimingReport.run(
                connection: data.fixture.connection, query: data.query, options: .init(baseline: "nope"))
        }
        #expect(throws: ReportError.self) {
            try PromptTimingReport.run(
                connection: data.fixture.connection, query: data.query, options: .init(platform: "windows"))
        }
        let empty = ReportQuery(app: Fixture.app, from: Fixture.time(2025, 1, 1), to: Fixture.time(2025, 1, 2))
        let report = try PromptTimingReport.run(connection: data.fixture.connection, query: empty)
        #expect(report.cohorts.isEmpty && report.baseline == nil)
        #expect(try report.rendered(.table).contains("no cohort in the window"))
    }
}
