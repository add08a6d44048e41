import Foundation

/// A proleptic Gregorian calendar date, converted to and from days since 1970-01-01 with
/// integer arithmetic (H. Hinnant's algorithms), so week and timestamp math needs no Calendar.
public struct CivilDate: Sendable, Hashable, Comparable {
    public let year: Int
    public let month: Int
    public let day: Int

    /// nil when the month or day is out of range for that year.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` after 1970-01-01 (negative before).
    public init(daysSinceEpoch days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// The calendar date of an instant in `timeZone` (UTC by default).
    public init(_ date: Date, in timeZone: TimeZone = .utcTimeZone) {
        let offset = timeZone == .utcTimeZone ? 0 : TimeInterval(timeZone.secondsFromGMT(for: date))
        self.init(daysSinceEpoch: Int(((date.timeIntervalSince1970 + offset) / 86_400).rounded(.down)))
    }

    /// Days since 1970-01-01.
    public var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// ISO weekday: 1 = Monday … 7 = Sunday.
    public var weekday: Int { Self.weekday(daysSinceEpoch: daysSinceEpoch) }

    /// Midnight at the start of this date in `timeZone` (UTC by default).
    public func start(in timeZone: TimeZone = .utcTimeZone) -> Date {
        let utcMidnight = Date(timeIntervalSince1970: TimeInterval(daysSinceEpoch) * 86_400)
        guard timeZone != .utcTimeZone else { return utcMidnight }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        // Calendar handles a midnight skipped by a daylight-saving change (it takes the first
        // instant of the day); offset arithmetic alone would not.
        return calendar.date(from: DateComponents(year: year, month: month, day: day))
            ?? utcMidnight.addingTimeInterval(-TimeInterval(timeZone.secondsFromGMT(for: utcMidnight)))
    }

    /// `YYYY-MM-DD`.
    public var iso: String { Timestamp.pad(year, 4) + "-" + Timestamp.pad(month, 2) + "-" + Timestamp.pad(day, 2) }

    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    static func weekday(daysSinceEpoch days: Int) -> Int {
        // 1970-01-01 was a Thursday (4).
        ((days + 3) % 7 + 7) % 7 + 1
    }

    static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

extension TimeZone {
    /// UTC, the default zone of every report window.
    public static let utcTimeZone = TimeZone(identifier: "UTC")!
}
