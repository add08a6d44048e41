import Foundation

/// A whole-second length of time written like `24h`, `7d`, `90m`, `400d` or `1h30m`
/// (units `w`, `d`, `h`, `m`, `s`), as command-line windows and rule settings are given.
public struct TimeSpan: Sendable, Hashable, Comparable {
    public let seconds: Int

    /// A span of `seconds` (≥ 0).
    public init(seconds: Int) {
        precondition(seconds >= 0, "TimeSpan cannot be negative")
        self.seconds = seconds
    }

    public static func minutes(_ n: Int) -> TimeSpan { TimeSpan(seconds: n * 60) }
    public static func hours(_ n: Int) -> TimeSpan { TimeSpan(seconds: n * 3_600) }
    public static func days(_ n: Int) -> TimeSpan { TimeSpan(seconds: n * 86_400) }

    /// Parses one or more `<number><unit>` parts, e.g. `7d` or `1d12h`.
    public init(parsing text: String) throws(TimeParseError) {
        var scanner = ByteScanner(Array(text.utf8))
        guard !scanner.isAtEnd else {
            throw TimeParseError(.duration, text, "expected a number and a unit, like 24h or 7d")
        }
        var total = 0
        while !scanner.isAtEnd {
            guard let run = scanner.digitRun(significant: 18) else {
                throw TimeParseError(.duration, text, "expected a number and a unit, like 24h or 7d")
            }
            guard run.count <= 18 else { throw TimeParseError(.duration, text, "too long") }
            guard let unit = scanner.peek.flatMap({ Self.unitSeconds[$0] }) else {
                throw TimeParseError(.duration, text, "unit must be one of w, d, h, m, s")
            }
            _ = scanner.skip(scanner.peek!)
            let (part, partOverflow) = run.value.multipliedReportingOverflow(by: unit)
            let (sum, sumOverflow) = total.addingReportingOverflow(part)
            guard !partOverflow, !sumOverflow else { throw TimeParseError(.duration, text, "too long") }
            total = sum
        }
        self.init(seconds: total)
    }

    /// Seconds as a `TimeInterval`, for `Date` arithmetic.
    public var timeInterval: TimeInterval { TimeInterval(seconds) }

    public static func < (lhs: TimeSpan, rhs: TimeSpan) -> Bool { lhs.seconds < rhs.seconds }

    private static let unitSeconds: [UInt8: Int] = [
        UInt8(ascii: "w"): 604_800, UInt8(ascii: "d"): 86_400, UInt8(ascii: "h"): 3_600,
        UInt8(ascii: "m"): 60, UInt8(ascii: "s"): 1,
    ]
}

extension TimeSpan: CustomStringConvertible, LosslessStringConvertible {
    /// The shortest form in days, hours, minutes and seconds: `7d`, `1h30m`, `0s`
    /// (weeks are not used, so `400d` stays `400d`).
    public var description: String {
        guard seconds > 0 else { return "0s" }
        let parts = [
            (seconds / 86_400, "d"), (seconds / 3_600 % 24, "h"), (seconds / 60 % 60, "m"), (seconds % 60, "s"),
        ]
        return parts.filter { $0.0 > 0 }.map { "\($0.0)\($0.1)" }.joined()
    }

    public init?(_ description: String) {
        guard let span = try? TimeSpan(parsing: description) else { return nil }
        self = span
    }
}

extension Date {
    /// This instant moved forward by `span`.
    public static func + (date: Date, span: TimeSpan) -> Date { date.addingTimeInterval(span.timeInterval) }
    /// This instant moved back by `span`.
    public static func - (date: Date, span: TimeSpan) -> Date { date.addingTimeInterval(-span.timeInterval) }
}
