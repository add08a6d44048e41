import Foundation

/// A date or date-time as written: `YYYY-MM-DD`, then optionally `[Tt ]hh:mm[:ss][.fraction]` and
/// an offset `Z`, `z`, `±hh`, `±hhmm` or `±hh:mm`. The one reader of this grammar: the wire's strict
/// RFC 3339 (`PushLedgerContract.RFC3339`) and the command line's `Timestamp.parseInstant` are two
/// checks of what it read, so the two cannot drift apart. Bytes in, nothing allocated: it runs for
/// every timestamp of every ingested event.
public struct DateTimeText: Sendable, Equatable {
    public var date: CivilDate
    /// The time of day; nil when only a date is written.
    public var time: Time?

    public struct Time: Sendable, Equatable {
        /// `T`, `t` or a space (RFC 3339 allows only the letters).
        public var separator: UInt8
        public var hour: Int
        public var minute: Int
        /// nil when the seconds are left out (`10:15`).
        public var second: Int?
        /// The fraction's first nine digits as a number; `fractionDigits` says how many digits were
        /// written (0: no fraction), further ones are read and dropped.
        public var fraction: Int
        public var fractionDigits: Int
        /// nil when no offset is written (the command line then reads the time in a time zone).
        public var offset: Offset?

        /// Seconds since midnight; a leap second `:60` counts into the next minute.
        public var secondOfDay: Int { hour * 3600 + minute * 60 + (second ?? 0) }

        /// The fraction in whole microseconds, further digits truncated (the store keeps microseconds).
        public var fractionMicroseconds: Int64 {
            var value = Int64(fraction)
            var places = min(fractionDigits, 9)
            while places < 6 {
                value *= 10
                places += 1
            }
            while places > 6 {
                value /= 10
                places -= 1
            }
            return value
        }

        /// The fraction in seconds, to the nanosecond.
        public var fractionSeconds: Double { Double(fraction) / pow(10, Double(min(fractionDigits, 9))) }
    }

    /// A written offset from UTC.
    public struct Offset: Sendable, Equatable {
        /// Seconds east of UTC.
        public var seconds: Int
        /// Written `Z`, `z` or `±hh:mm`, the forms RFC 3339 allows (not `±hh` or `±hhmm`).
        public var isRFC3339: Bool
    }

    /// Why text is not a date-time, the first problem met reading left to right; `description` is
    /// the reason shown to users.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case expectedDate
        case month
        /// The day is not in the month, which has `days` days.
        case day(days: Int)
        case expectedTime
        case expectedSeconds
        case expectedFraction
        case hour
        case minute
        /// The second is above `last` (59, or 60 where a leap second is allowed).
        case second(last: Int)
        case expectedOffset
        case offsetRange
        case trailingText

        public var description: String {
            switch self {
            case .expectedDate: "expected YYYY-MM-DD"
            case .month: "month must be 01 to 12"
            case .day(let days): "day must be 01 to \(days)"
            case .expectedTime: "expected a time hh:mm:ss after the date"
            case .expectedSeconds: "expected two digits of seconds"
            case .expectedFraction: "expected digits after '.'"
            case .hour: "hour must be 00 to 23"
            case .minute: "minute must be 00 to 59"
            case .second(let last): "second must be 00 to \(last)"
            case .expectedOffset: "expected an offset ±hh:mm"
            case .offsetRange: "offset out of range"
            case .trailingText: "unexpected text after the time"
            }
        }
    }

    /// Seconds since 1970 (UTC) of the whole second written; nil without a time or an offset.
    public var secondsSince1970: Int? {
        guard let time, let offset = time.offset else { return nil }
        return date.daysSinceEpoch * 86_400 + time.secondOfDay - offset.seconds
    }

    /// Reads `text` (UTF-8) whole. `leapSecond` allows a second `:60`: RFC 3339 has leap seconds,
    /// the command line does not.
    public static func parse(_ text: UnsafeBufferPointer<UInt8>, leapSecond: Bool) -> Result<DateTimeText, Failure> {
        var scanner = ByteScanner(text)
        guard let year = scanner.digits(exactly: 4), scanner.skip(UInt8(ascii: "-")),
            let month = scanner.digits(exactly: 2), scanner.skip(UInt8(ascii: "-")),
            let day = scanner.digits(exactly: 2)
        else { return .failure(.expectedDate) }
        guard (1...12).contains(month) else { return .failure(.month) }
        guard let date = CivilDate(year: year, month: month, day: day) else {
            return .failure(.day(days: CivilDate.daysIn(month: month, year: year)))
        }
        if scanner.isAtEnd { return .success(DateTimeText(date: date, time: nil)) }

        guard let separator = scanner.peek,
            separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == UInt8(ascii: " ")
        else { return .failure(.expectedTime) }
        _ = scanner.skip(separator)
        guard let hour = scanner.digits(exactly: 2), scanner.skip(UInt8(ascii: ":")),
            let minute = scanner.digits(exactly: 2)
        else { return .failure(.expectedTime) }
        var time = Time(
            separator: separator, hour: hour, minute: minute, second: nil, fraction: 0, fractionDigits: 0, offset: nil)
        if scanner.skip(UInt8(ascii: ":")) {
            guard let second = scanner.digits(exactly: 2) else { return .failure(.expectedSeconds) }
            time.second = second
        }
        if scanner.skip(UInt8(ascii: ".")) {
            guard let run = scanner.digitRun(significant: 9) else { return .failure(.expectedFraction) }
            (time.fraction, time.fractionDigits) = run
        }
        let lastSecond = leapSecond ? 60 : 59
        guard hour <= 23 else { return .failure(.hour) }
        guard minute <= 59 else { return .failure(.minute) }
        guard (time.second ?? 0) <= lastSecond else { return .failure(.second(last: lastSecond)) }

        switch readOffset(&scanner) {
        case .success(let offset): time.offset = offset
        case .failure(let failure): return .failure(failure)
        }
        guard scanner.isAtEnd else { return .failure(.trailingText) }
        return .success(DateTimeText(date: date, time: time))
    }

    /// `parse` on a string's UTF-8.
    public static func parse(_ text: String, leapSecond: Bool) -> Result<DateTimeText, Failure> {
        var text = text
        return text.withUTF8 { parse($0, leapSecond: leapSecond) }
    }

    /// The offset, or nil when none is written.
    private static func readOffset(
        _ scanner: inout ByteScanner<UnsafeBufferPointer<UInt8>>
    ) -> Result<Offset?, Failure> {
        if scanner.skip(UInt8(ascii: "Z")) || scanner.skip(UInt8(ascii: "z")) {
            return .success(Offset(seconds: 0, isRFC3339: true))
        }
        let sign = scanner.peek
        guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return .success(nil) }
        _ = scanner.skip(sign!)
        guard let hours = scanner.digits(exactly: 2) else { return .failure(.expectedOffset) }
        var minutes = 0
        let colon = scanner.skip(UInt8(ascii: ":"))
        if let value = scanner.digits(exactly: 2) {
            minutes = value
        } else if colon {
            return .failure(.expectedOffset)
        }
        guard hours <= 23, minutes <= 59 else { return .failure(.offsetRange) }
        let magnitude = hours * 3600 + minutes * 60
        return .success(Offset(seconds: sign == UInt8(ascii: "-") ? -magnitude : magnitude, isRFC3339: colon))
    }
}
