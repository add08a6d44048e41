import Foundation

/// An ISO week in UTC (Monday 00:00 to Monday 00:00), the weekly report's window.
public struct ReportWeek: Sendable, Hashable, Comparable {
    /// Monday 00:00 UTC.
    public let start: Date

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The week containing `date`.
    public init(containing date: Date) {
        let parts = Self.calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: date)
        start = Self.calendar.date(from: DateComponents(weekday: 2, weekOfYear: parts.weekOfYear, yearForWeekOfYear: parts.yearForWeekOfYear))!
    }

    /// Parses `2026-W48`; nil when malformed or the year has no such week (W53 exists only in
    /// long years).
    public init?(_ text: String) {
        let parts = text.split(separator: "-W", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2,
              let year = Int(parts[0]), let week = Int(parts[1]), (1...53).contains(week),
              let date = Self.calendar.date(from: DateComponents(weekday: 2, weekOfYear: week, yearForWeekOfYear: year))
        else { return nil }
        self.init(containing: date)
        guard label == text else { return nil }
    }

    public var end: Date { start.addingTimeInterval(7 * 86_400) }
    public var previous: ReportWeek { ReportWeek(containing: start.addingTimeInterval(-3 * 86_400)) }
    public var next: ReportWeek { ReportWeek(containing: end.addingTimeInterval(3 * 86_400)) }

    /// `YYYY-Www`, the ISO week-year and week number.
    public var label: String {
        let parts = Self.calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: start)
        return String(format: "%04d-W%02d", parts.yearForWeekOfYear!, parts.weekOfYear!)
    }

    /// The `count` weeks ending with this one, oldest first.
    func recent(_ count: Int) -> [ReportWeek] {
        var weeks = [self]
        while weeks.count < count { weeks.insert(weeks[0].previous, at: 0) }
        return weeks
    }

    public static func < (lhs: ReportWeek, rhs: ReportWeek) -> Bool { lhs.start < rhs.start }
}
