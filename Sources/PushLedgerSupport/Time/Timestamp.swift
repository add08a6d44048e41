import Foundation

/// Formatting of instants as RFC 3339, and parsing of the friendlier forms accepted by
/// `--from`/`--to`. Hand-written: DateFormatter is slow and locale-sensitive. The wire's strict
/// RFC 3339 is parsed by the contract (`PushLedgerContract.RFC3339`), the one parser of it.
public enum Timestamp {
    /// A command-line instant: a date (`2026-11-23`, midnight in `timeZone`) or a date-time
    /// (`2026-11-23T10:15`, `2026-11-23 10:15:30.5+01:00`); without an offset the time is
    /// read in `timeZone` (UTC by default).
    public static func parseInstant(_ text: String, timeZone: TimeZone = .utcTimeZone) throws(TimeParseError) -> Date {
        try parse(text, timeZone: timeZone)
    }

    /// RFC 3339 in UTC with milliseconds, e.g. `2026-11-23T10:15:30.123Z` (rounded to the millisecond).
    public static func rfc3339(_ date: Date) -> String {
        rfc3339(microseconds: Int64((date.timeIntervalSince1970 * 1000).rounded()) * 1000, fractionDigits: 3)
    }

    /// RFC 3339 in UTC with `fractionDigits` (0 to 6) digits of the second, truncated:
    /// `2026-11-30T10:00:05.120Z` with 3, `…05.120000Z` with 6. The one formatter of instants.
    public static func rfc3339(microseconds: Int64, fractionDigits: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(27)
        appendRFC3339(microseconds: microseconds, fractionDigits: fractionDigits, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `rfc3339(microseconds:fractionDigits:)` appended to bytes, for writers of many events.
    public static func appendRFC3339(microseconds: Int64, fractionDigits: Int, to bytes: inout [UInt8]) {
        let (days, inDay) = floorDivide(microseconds, 86_400_000_000)
        let civil = CivilDate(daysSinceEpoch: Int(days))
        let second = inDay / 1_000_000
        func digits(_ value: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<max(width, 1) { divisor *= 10 }
            var v = value
            if v < 0 {
                bytes.append(UInt8(ascii: "-"))
                v = -v
            }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(v / divisor % 10))
                divisor /= 10
            }
        }
        digits(Int64(civil.year), 4)
        bytes.append(UInt8(ascii: "-"))
        digits(Int64(civil.month), 2)
        bytes.append(UInt8(ascii: "-"))
        digits(Int64(civil.day), 2)
        bytes.append(UInt8(ascii: "T"))
        digits(second / 3600, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(second / 60 % 60, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(second % 60, 2)
        let places = min(max(fractionDigits, 0), 6)
        if places > 0 {
            bytes.append(UInt8(ascii: "."))
            var scale: Int64 = 1
            for _ in places..<6 { scale *= 10 }
            digits(inDay % 1_000_000 / scale, places)
        }
        bytes.append(UInt8(ascii: "Z"))
    }

    /// Zero-padded decimal of a non-negative number (negative years keep their sign).
    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(abs(value))
        let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
        return value < 0 ? "-" + padded : padded
    }

    private static func floorDivide<T: BinaryInteger>(_ a: T, _ b: T) -> (quotient: T, remainder: T) {
        let remainder = (a % b + b) % b
        return ((a - remainder) / b, remainder)
    }

    private static func parse(_ text: String, timeZone: TimeZone) throws(TimeParseError) -> Date {
        func fail(_ reason: String) -> TimeParseError { TimeParseError(.timestamp, text, reason) }

        var scanner = ByteScanner(Array(text.utf8))
        guard let year = scanner.digits(exactly: 4), scanner.skip(UInt8(ascii: "-")),
            let month = scanner.digits(exactly: 2), scanner.skip(UInt8(ascii: "-")),
            let day = scanner.digits(exactly: 2)
        else { throw fail("expected YYYY-MM-DD") }
        guard (1...12).contains(month) else { throw fail("month must be 01 to 12") }
        guard let date = CivilDate(year: year, month: month, day: day) else {
            throw fail("day must be 01 to \(CivilDate.daysIn(month: month, year: year))")
        }
        if scanner.isAtEnd { return date.start(in: timeZone) }

        let separators = [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")]
        guard scanner.skip(anyOf: separators) != nil, let hour = scanner.digits(exactly: 2),
            scanner.skip(UInt8(ascii: ":")), let minute = scanner.digits(exactly: 2)
        else { throw fail("expected a time hh:mm:ss after the date") }
        var second = 0
        if scanner.skip(UInt8(ascii: ":")) {
            guard let value = scanner.digits(exactly: 2) else { throw fail("expected two digits of seconds") }
            second = value
        }
        var fraction = 0.0
        if scanner.skip(UInt8(ascii: ".")) {
            guard let run = scanner.digitRun(significant: 9) else { throw fail("expected digits after '.'") }
            fraction = Double(run.value) / pow(10, Double(min(run.count, 9)))
        }
        guard hour <= 23 else { throw fail("hour must be 00 to 23") }
        guard minute <= 59 else { throw fail("minute must be 00 to 59") }
        guard second <= 59 else { throw fail("second must be 00 to 59") }

        let offset = try parseOffset(&scanner, fail: fail)
        guard scanner.isAtEnd else { throw fail("unexpected text after the time") }
        let secondOfDay = hour * 3600 + minute * 60 + second
        guard let offset else {
            let local = date.start(in: timeZone).addingTimeInterval(TimeInterval(secondOfDay) + fraction)
            // A wall-clock time after a daylight-saving change within the day: re-read the offset then.
            let shift = timeZone.secondsFromGMT(for: date.start(in: timeZone)) - timeZone.secondsFromGMT(for: local)
            return local.addingTimeInterval(TimeInterval(shift))
        }
        let seconds = date.daysSinceEpoch * 86_400 + secondOfDay - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }

    /// The offset in seconds east of UTC, or nil when none is written.
    private static func parseOffset(
        _ scanner: inout ByteScanner, fail: (String) -> TimeParseError
    ) throws(TimeParseError) -> Int? {
        if scanner.skip(anyOf: [UInt8(ascii: "Z"), UInt8(ascii: "z")]) != nil { return 0 }
        guard let sign = scanner.skip(anyOf: [UInt8(ascii: "+"), UInt8(ascii: "-")]) else { return nil }
        guard let hours = scanner.digits(exactly: 2) else { throw fail("expected an offset ±hh:mm") }
        var minutes = 0
        let colon = scanner.skip(UInt8(ascii: ":"))
        if let value = scanner.digits(exactly: 2) {
            minutes = value
        } else if colon {
            throw fail("expected an offset ±hh:mm")
        }
        guard hours <= 23, minutes <= 59 else { throw fail("offset out of range") }
        let magnitude = hours * 3600 + minutes * 60
        return sign == UInt8(ascii: "-") ? -magnitude : magnitude
    }
}
