import Foundation

/// An ISO 8601 week such as `2026-W48`: Monday to Monday, numbered within its week-year.
///
/// The week-year differs from the calendar year near New Year: 2024-12-30 is in 2025-W01, and
/// 2021-01-01 is in 2020-W53. Years whose 1 January is a Thursday (or a Wednesday, in a leap
/// year) have 53 weeks.
public struct ISOWeek: Sendable, Hashable, Comparable {
    /// The ISO week-year.
    public let year: Int
    /// 1 … 52 or 53.
    public let week: Int

    /// nil when `week` is not a week of that week-year.
    public init?(year: Int, week: Int) {
        guard week >= 1, week <= Self.weeks(inYear: year) else { return nil }
        self.year = year
        self.week = week
    }

    /// The week containing the calendar date.
    public init(containing date: CivilDate) {
        let days = date.daysSinceEpoch
        // A week belongs to the year of its Thursday.
        let thursday = CivilDate(daysSinceEpoch: days - date.weekday + 4)
        let dayOfYear = thursday.daysSinceEpoch - CivilDate(year: thursday.year, month: 1, day: 1)!.daysSinceEpoch
        year = thursday.year
        week = dayOfYear / 7 + 1
    }

    /// The week containing an instant, weeks being counted in `timeZone` (UTC by default).
    public init(containing date: Date, in timeZone: TimeZone = .utcTimeZone) {
        self.init(containing: CivilDate(date, in: timeZone))
    }

    /// Parses `2026-W48` (or the basic form `2026W48`).
    public init(parsing text: String) throws(TimeParseError) {
        let bytes = Array(text.utf8)
        var scanner = ByteScanner(bytes)
        guard let year = scanner.digits(exactly: 4) else { throw TimeParseError(.week, text, "expected YYYY-Www") }
        _ = scanner.skip(UInt8(ascii: "-"))
        guard scanner.skip(UInt8(ascii: "W")), let week = scanner.digits(exactly: 2), scanner.isAtEnd else {
            throw TimeParseError(.week, text, "expected YYYY-Www")
        }
        guard let parsed = ISOWeek(year: year, week: week) else {
            throw TimeParseError(.week, text, "\(year) has weeks 01 to \(Self.weeks(inYear: year))")
        }
        self = parsed
    }

    /// 52 or 53.
    public static func weeks(inYear year: Int) -> Int {
        // 28 December is always in the last week of its year.
        ISOWeek(containing: CivilDate(year: year, month: 12, day: 28)!).week
    }

    /// The Monday that starts the week.
    public var monday: CivilDate {
        let january4 = CivilDate(year: year, month: 1, day: 4)!
        return CivilDate(daysSinceEpoch: january4.daysSinceEpoch - january4.weekday + 1 + (week - 1) * 7)
    }

    /// Monday 00:00 of this week in `timeZone` (UTC by default): the window's inclusive start.
    public func start(in timeZone: TimeZone = .utcTimeZone) -> Date { monday.start(in: timeZone) }

    /// Monday 00:00 of the next week: the window's exclusive end.
    public func end(in timeZone: TimeZone = .utcTimeZone) -> Date { next.start(in: timeZone) }

    public var next: ISOWeek { ISOWeek(containing: CivilDate(daysSinceEpoch: monday.daysSinceEpoch + 7)) }
    public var previous: ISOWeek { ISOWeek(containing: CivilDate(daysSinceEpoch: monday.daysSinceEpoch - 7)) }

    public static func < (lhs: ISOWeek, rhs: ISOWeek) -> Bool { (lhs.year, lhs.week) < (rhs.year, rhs.week) }
}

extension ISOWeek: CustomStringConvertible, LosslessStringConvertible {
    /// `2026-W48`.
    public var description: String {
        let weekText = week < 10 ? "0\(week)" : "\(week)"
        return "\(Timestamp.pad(year, 4))-W\(weekText)"
    }

    public init?(_ description: String) {
        guard let week = try? ISOWeek(parsing: description) else { return nil }
        self = week
    }
}

extension ISOWeek: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try ISOWeek(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
