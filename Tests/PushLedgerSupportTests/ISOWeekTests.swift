import Foundation
import Testing

@testable import PushLedgerSupport

/// Reference values: python3 `datetime.date.fromisoformat(s).isocalendar()` and
/// `date.fromisocalendar(y, w, 1)`.
@Suite("ISO weeks and calendar dates")
struct ISOWeekTests {
    @Test(arguments: [
        ("2024-12-30", 2025, 1),  // week 1 starting in the previous calendar year
        ("2025-12-29", 2026, 1),
        ("2026-11-23", 2026, 48),
        ("2026-11-30", 2026, 49),
        ("2026-12-28", 2026, 53),
        ("2027-01-03", 2026, 53),  // a Sunday of the next calendar year still in week 53
        ("2027-01-04", 2027, 1),
        ("2020-12-31", 2020, 53),
        ("2021-01-01", 2020, 53),
        ("2021-01-03", 2020, 53),
        ("2021-01-04", 2021, 1),
        ("2008-12-29", 2009, 1),
        ("2010-01-03", 2009, 53),
        ("1970-01-01", 1970, 1),
        ("1969-12-29", 1970, 1),  // before the epoch
        ("2000-02-29", 2000, 9),
    ])
    func weekOfDate(text: String, year: Int, week: Int) throws {
        let date = try Timestamp.parseInstant(text)
        let isoWeek = ISOWeek(containing: date)
        #expect(isoWeek.year == year)
        #expect(isoWeek.week == week)
    }

    @Test(arguments: [
        (2015, 53), (2019, 52), (2020, 53), (2021, 52), (2026, 53), (2032, 53), (2037, 53), (2004, 53), (1998, 53),
    ])
    func weeksInYear(year: Int, weeks: Int) {
        #expect(ISOWeek.weeks(inYear: year) == weeks)
        #expect(ISOWeek(year: year, week: weeks) != nil)
        #expect(ISOWeek(year: year, week: weeks + 1) == nil)
    }

    @Test func weekBounds() throws {
        let week = try ISOWeek(parsing: "2026-W48")
        #expect(week.monday == CivilDate(year: 2026, month: 11, day: 23))
        #expect(week.start() == Date(timeIntervalSince1970: 1_795_392_000))  // python: 2026-11-23T00:00Z
        #expect(week.end() == Date(timeIntervalSince1970: 1_795_996_800))  // 2026-11-30T00:00Z
        #expect(try ISOWeek(parsing: "2026-W01").monday == CivilDate(year: 2025, month: 12, day: 29))
        #expect(try ISOWeek(parsing: "2020-W53").monday == CivilDate(year: 2020, month: 12, day: 28))
    }

    @Test func weekBoundsInATimeZone() throws {
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        let week = try ISOWeek(parsing: "2026-W48")
        // python: datetime(2026, 11, 23, tzinfo=ZoneInfo("America/New_York")).timestamp()
        #expect(week.start(in: newYork) == Date(timeIntervalSince1970: 1_795_410_000))
        // Sunday 22:00 in New York is already Monday in UTC: weeks are counted in the zone given.
        let sundayEvening = Date(timeIntervalSince1970: 1_795_410_000 - 2 * 3600)
        #expect(ISOWeek(containing: sundayEvening, in: newYork) == ISOWeek(year: 2026, week: 47))
        #expect(ISOWeek(containing: sundayEvening) == ISOWeek(year: 2026, week: 48))
    }

    @Test func nextAndPreviousCrossYears() throws {
        #expect(try ISOWeek(parsing: "2026-W53").next == ISOWeek(year: 2027, week: 1))
        #expect(try ISOWeek(parsing: "2027-W01").previous == ISOWeek(year: 2026, week: 53))
        #expect(try ISOWeek(parsing: "2021-W52").next == ISOWeek(year: 2022, week: 1))
        #expect(try ISOWeek(parsing: "2026-W48").previous.description == "2026-W47")
        #expect(try ISOWeek(parsing: "2026-W01") < ISOWeek(parsing: "2026-W02"))
        #expect(try ISOWeek(parsing: "2025-W52") < ISOWeek(parsing: "2026-W01"))
    }

    @Test func everyWeekStartsOnMondayAndIsSevenDays() {
        var week = ISOWeek(year: 2019, week: 50)!
        for _ in 0..<400 {
            #expect(week.monday.weekday == 1)
            #expect(week.end().timeIntervalSince(week.start()) == 7 * 86_400)
            #expect(ISOWeek(containing: week.start()) == week)
            #expect(ISOWeek(containing: week.end().addingTimeInterval(-0.001)) == week)
            week = week.next
        }
        #expect(week == ISOWeek(year: 2027, week: 32))  // python: (date(2019,12,9) + 400 weeks).isocalendar()
    }

    @Test func formatAndParse() throws {
        #expect(ISOWeek(year: 2026, week: 8)!.description == "2026-W08")
        #expect(try ISOWeek(parsing: "2026W08") == ISOWeek(year: 2026, week: 8))
        #expect(ISOWeek("2026-W48") == ISOWeek(year: 2026, week: 48))
        #expect(ISOWeek("nonsense") == nil)
    }

    @Test(arguments: [
        ("2026-W", "expected YYYY-Www"),
        ("2026-48", "expected YYYY-Www"),
        ("2026-W4", "expected YYYY-Www"),
        ("2026-W480", "expected YYYY-Www"),
        ("26-W48", "expected YYYY-Www"),
        ("2021-W53", "2021 has weeks 01 to 52"),
        ("2026-W00", "2026 has weeks 01 to 53"),
    ])
    func parseErrors(text: String, reason: String) {
        #expect(throws: TimeParseError(.week, text, reason)) { try ISOWeek(parsing: text) }
    }

    @Test func errorDescriptionIsOneLine() {
        let error = TimeParseError(.week, "2021-W53", "2021 has weeks 01 to 52")
        #expect(error.description == "invalid ISO week '2021-W53': 2021 has weeks 01 to 52")
        let long = TimeParseError(.duration, String(repeating: "x", count: 100), "unit must be one of w, d, h, m, s")
        #expect(
            long.description
                == "invalid duration '\(String(repeating: "x", count: 64))…': unit must be one of w, d, h, m, s")
    }

    @Test func codableAsText() throws {
        let data = try JSONEncoder().encode([ISOWeek(year: 2026, week: 48)!])
        #expect(String(decoding: data, as: UTF8.self) == #"["2026-W48"]"#)
        #expect(try JSONDecoder().decode([ISOWeek].self, from: data) == [ISOWeek(year: 2026, week: 48)!])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([ISOWeek].self, from: Data(#"["2021-W53"]"#.utf8))
        }
    }

    @Test func civilDateRoundTripsAcrossCenturies() {
        // 1600-01-01 to 2400-12-31: each day maps back to itself, and consecutive days are consecutive.
        let first = CivilDate(year: 1600, month: 1, day: 1)!.daysSinceEpoch
        let last = CivilDate(year: 2400, month: 12, day: 31)!.daysSinceEpoch
        var previous = CivilDate(daysSinceEpoch: first - 1)
        var mismatches: [Int] = []
        for days in first...last {
            let date = CivilDate(daysSinceEpoch: days)
            if date.daysSinceEpoch != days || !(previous < date) { mismatches.append(days) }
            previous = date
        }
        #expect(mismatches.isEmpty)
        #expect(last - first + 1 == 292_560)  // 801 years: 801 × 365 + 195 leap days
    }

    @Test func civilDateValidation() {
        #expect(CivilDate(year: 2024, month: 2, day: 29) != nil)
        #expect(CivilDate(year: 2026, month: 2, day: 29) == nil)
        #expect(CivilDate(year: 1900, month: 2, day: 29) == nil)
        #expect(CivilDate(year: 2000, month: 2, day: 29) != nil)
        #expect(CivilDate(year: 2026, month: 13, day: 1) == nil)
        #expect(CivilDate(year: 2026, month: 4, day: 31) == nil)
        #expect(CivilDate(year: 2026, month: 1, day: 0) == nil)
        #expect(CivilDate(daysSinceEpoch: 0) == CivilDate(year: 1970, month: 1, day: 1))
        #expect(CivilDate(daysSinceEpoch: -1) == CivilDate(year: 1969, month: 12, day: 31))
        #expect(CivilDate(Date(timeIntervalSince1970: -0.001)) == CivilDate(year: 1969, month: 12, day: 31))
    }
}
