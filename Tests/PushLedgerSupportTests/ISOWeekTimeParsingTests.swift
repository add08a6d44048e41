import Foundation
import Testing

@testable import PushLedgerSupport

/// Reference instants: python3 `datetime.fromisoformat(s).timestamp()`.
@Suite("Timestamps")
struct TimestampTests {
    @Test(arguments: [
        ("2026-11-23T10:15:30.123Z", 1_795_428_930.123),
        ("2026-11-23t10:15:30.123z", 1_795_428_930.123),
        ("2026-11-23T10:15:30.5+02:00", 1_795_421_730.5),
        ("2026-11-23T00:00:00-05:30", 1_795_411_800.0),
        ("1969-12-31T23:59:59.999Z", -0.001),
        ("2024-02-29T12:00:00Z", 1_709_208_000.0),
        ("2000-01-01T00:00:00.000000001Z", 946_684_800.000000001),
    ])
    func commandLineFormReadsRFC3339(text: String, seconds: Double) throws {
        let date = try Timestamp.parseInstant(text)
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6)
    }

    @Test(arguments: [
        ("2026-11-23", 1_795_392_000.0),
        ("2026-11-23T10:15", 1_795_428_900.0),
        ("2026-11-23 10:15:30", 1_795_428_930.0),
        ("2026-11-23T10:15+0100", 1_795_425_300.0),
        ("2026-11-23T10:15-01", 1_795_432_500.0),
        ("2026-11-23T10:15:30.25Z", 1_795_428_930.25),
    ])
    func commandLineForms(text: String, seconds: Double) throws {
        #expect(abs(try Timestamp.parseInstant(text).timeIntervalSince1970 - seconds) < 1e-6)
    }

    @Test func commandLineFormsInATimeZone() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        // python: datetime(2026, 3, 29, h, 0, tzinfo=ZoneInfo("Europe/Berlin")).timestamp();
        // summer time starts at 02:00 that day, between midnight and noon.
        #expect(
            try Timestamp.parseInstant("2026-03-29", timeZone: berlin) == Date(timeIntervalSince1970: 1_774_738_800))
        #expect(
            try Timestamp.parseInstant("2026-03-29T12:00", timeZone: berlin)
                == Date(timeIntervalSince1970: 1_774_778_400))
        // An explicit offset wins over the zone.
        #expect(
            try Timestamp.parseInstant("2026-03-29T12:00Z", timeZone: berlin)
                == Date(timeIntervalSince1970: 1_774_785_600))
    }

    @Test(arguments: [
        ("", "expected YYYY-MM-DD"),
        ("2026-1-23", "expected YYYY-MM-DD"),
        ("2026/11/23", "expected YYYY-MM-DD"),
        ("2026-13-01", "month must be 01 to 12"),
        ("2026-00-01", "month must be 01 to 12"),
        ("2026-02-29", "day must be 01 to 28"),
        ("2026-04-31", "day must be 01 to 30"),
        ("2026-11-23X", "expected a time hh:mm:ss after the date"),
        ("2026-11-23T1015", "expected a time hh:mm:ss after the date"),
        ("2026-11-23T24:00", "hour must be 00 to 23"),
        ("2026-11-23T10:60", "minute must be 00 to 59"),
        ("2026-11-23T10:15:60Z", "second must be 00 to 59"),
        ("2026-11-23T10:15:3Z", "expected two digits of seconds"),
        ("2026-11-23T10:15:30.Z", "expected digits after '.'"),
        ("2026-11-23T10:15:30+24:00", "offset out of range"),
        ("2026-11-23T10:15:30+01:", "expected an offset ±hh:mm"),
        ("2026-11-23T10:15:30+", "expected an offset ±hh:mm"),
        ("2026-11-23T10:15:30Z ", "unexpected text after the time"),
    ])
    func commandLineFormRefuses(text: String, reason: String) {
        #expect(throws: TimeParseError(.timestamp, text, reason)) { try Timestamp.parseInstant(text) }
    }

    @Test(arguments: [
        (1_795_428_930.123, "2026-11-23T10:15:30.123Z"),
        (1_795_428_930.0, "2026-11-23T10:15:30.000Z"),
        (1_795_428_930.9996, "2026-11-23T10:15:31.000Z"),  // rounds with carry into the second
        (-0.001, "1969-12-31T23:59:59.999Z"),
        (0, "1970-01-01T00:00:00.000Z"),
        (951_825_600, "2000-02-29T12:00:00.000Z"),
    ])
    func formatsWithMilliseconds(seconds: Double, text: String) {
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test func formatParsesBack() throws {
        var seconds = 1_700_000_000.0
        for _ in 0..<1_000 {
            let date = Date(timeIntervalSince1970: seconds)
            let text = Timestamp.rfc3339(date)
            #expect(abs(try Timestamp.parseInstant(text).timeIntervalSince(date)) <= 0.0005)
            seconds += 86_399.987
        }
    }
}

@Suite("Time spans")
struct TimeSpanTests {
    @Test(arguments: [
        ("24h", 86_400), ("7d", 604_800), ("90m", 5_400), ("400d", 34_560_000), ("30s", 30),
        ("2w", 1_209_600), ("1h30m", 5_400), ("1d12h", 129_600), ("0s", 0),
    ])
    func parses(text: String, seconds: Int) throws {
        #expect(try TimeSpan(parsing: text).seconds == seconds)
    }

    @Test(arguments: [
        ("", "expected a number and a unit, like 24h or 7d"),
        ("24", "unit must be one of w, d, h, m, s"),
        ("h", "expected a number and a unit, like 24h or 7d"),
        ("7days", "expected a number and a unit, like 24h or 7d"),
        ("-7d", "expected a number and a unit, like 24h or 7d"),
        ("7 d", "unit must be one of w, d, h, m, s"),
        ("1.5h", "unit must be one of w, d, h, m, s"),
        ("7D", "unit must be one of w, d, h, m, s"),
        ("99999999999999999w", "too long"),
        ("9999999999999999999d", "too long"),
    ])
    func refuses(text: String, reason: String) {
        #expect(throws: TimeParseError(.duration, text, reason)) { try TimeSpan(parsing: text) }
    }

    @Test(arguments: [
        (0, "0s"), (86_400, "1d"), (5_400, "1h30m"), (34_560_000, "400d"), (90_061, "1d1h1m1s"), (604_800, "7d"),
    ])
    func describes(seconds: Int, text: String) throws {
        #expect(TimeSpan(seconds: seconds).description == text)
        #expect(try TimeSpan(parsing: text).seconds == seconds)
    }

    @Test func arithmetic() {
        let date = Date(timeIntervalSince1970: 1_000_000)
        #expect(date + .hours(24) == Date(timeIntervalSince1970: 1_086_400))
        #expect(date - .days(1) == Date(timeIntervalSince1970: 913_600))
        #expect(TimeSpan.minutes(90) == TimeSpan("1h30m"))
        #expect(TimeSpan.hours(24) < TimeSpan.days(2))
    }
}
