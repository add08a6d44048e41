import Foundation
import Postgres
import PushLedgerSupport
import TestSupport
import Testing

@testable import OutcomeEngine
@testable import Reports

@Suite("Report arguments, errors and JSON text")
struct ReportErrorTests {
    let day = Fixture.time(2026, 11, 9)

    @Test func badWindowsAndNamesAreInvalidQueries() throws {
        #expect(throws: ReportError.self) { try ReportQuery(app: "", from: day, to: day).validated() }
        do {
            _ = try ReportQuery(app: "a", from: day.addingTimeInterval(1), to: day).validated()
            Issue.record("a window ending before it starts was accepted")
        } catch {
            #expect(error.kind == .invalidQuery && error.description.contains("start is after its end"))
        }
        #expect(try ReportQuery(app: "a", from: day, to: day).validated().from == day)  // empty is fine
        #expect(try ReportDimension.parseList("channel, platform,channel") == [.channel, .platform])
        do {
            _ = try ReportDimension.parseList("channel,country")
            Issue.record("an unknown dimension was accepted")
        } catch {
            #expect(error.kind == .invalidQuery && error.description.contains("'country'"))
        }
    }

    @Test func databaseFailuresAreSafeToShow() throws {
        // A database without the migrations: the report functions are missing.
        let bare = try Connection.connect(url: try TestDatabase.empty(prefix: "rep"))
        do {
            _ = try SilentLossReport.run(
                connection: bare, query: ReportQuery(app: "a", from: day, to: day.addingTimeInterval(86_400)))
            Issue.record("a report ran without its SQL functions")
        } catch {
            #expect(error.kind == .database)
            #expect(error.description == "database error while classifying sends")
            #expect(error.debugDescription.contains("pushledger_silent_loss"))
        }
        #expect(throws: ReportError.self) { try ReportRollups.refresh(connection: bare) }
        #expect(throws: ReportError.self) {
            try WeeklyReport.run(connection: bare, app: "a", week: ISOWeek(year: 2026, week: 46)!)
        }
        #expect(throws: ReportError.self) {
            try PromptTimingReport.run(connection: bare, query: ReportQuery(app: "a", from: day, to: day))
        }
        #expect(throws: ReportError.self) {
            try RejectionsReport.run(connection: bare, query: ReportQuery(app: "a", from: day, to: day))
        }
        #expect(throws: ReportError.self) { try SilentLossReport.quick(connection: bare, app: "a", since: 0) }
    }

    @Test func jsonTextEscapesAndKeepsNulls() {
        let value = JSONValue.object([
            ("text", .string("a\"b\\c\nd\u{1}é")), ("none", .null), ("rate", .double(0.125)), ("whole", .double(3)),
            ("list", .array([.int(-1), .bool(true), .bool(false)])), ("empty", .object([])), ("nothing", .array([])),
        ])
        #expect(
            value.jsonText
                == #"{"text":"a\"b\\c\nd\u0001é","none":null,"rate":0.125,"whole":3,"list":[-1,true,false],"empty":{},"#
                + #""nothing":[]}"#
        )
        #expect(value.jsonText(pretty: true).contains("\n  \"none\": null,\n"))
        #expect(JSONValue.double(.nan).jsonText == "null")
    }

    @Test func rollupSummaryNamesTheDays() {
        let asOf = Fixture.time(2026, 11, 30, 9)
        let summary = ReportRollups.Summary(
            days: [("b", "2026-11-02"), ("a", "2026-11-01"), ("a", "2026-11-03")],
            promptCohortDays: 1, asOf: asOf, reclassifiedSends: 12)
        #expect(
            summary.text
                == """
                recomputed 3 days of 2 apps and 1 prompt-cohort day as of 2026-11-30T09:00:00.000Z\n  a: 2 \
                (2026-11-01 … 2026-11-03)\n  b: 1 (2026-11-02)\n12 sends reclassified\n
                """
        )
        var rebuilt = summary
        rebuilt.full = true
        rebuilt.reclassifiedSends = 1
        #expect(rebuilt.text.hasSuffix("\n1 send reclassified (full rebuild)\n"))
        #expect(rebuilt.json.jsonText.contains(#""full":true,"reclassified_sends":1,"#))
        #expect(ReportRollups.Summary(days: [], promptCohortDays: 0, asOf: asOf).text.contains("nothing to recompute"))
        #expect(
            ReportRollups.Summary(days: [], promptCohortDays: 4, asOf: asOf).text
                == "recomputed 4 prompt-cohort days as of 2026-11-30T09:00:00.000Z\n")
        #expect(
            summary.json.jsonText.hasPrefix(
                #"{"as_of":"2026-11-30T09:00:00.000Z","days":[{"app":"b","day":"2026-11-02"}"#))
        #expect(summary.json.jsonText.hasSuffix(#""prompt_cohort_days":1}"#))
    }
}
