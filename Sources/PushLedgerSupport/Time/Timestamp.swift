import Foundation

/// Formatting of instants as RFC 3339, and reading of the friendlier forms accepted by
/// `--from`/`--to`. Hand-written: DateFormatter is slow and locale-sensitive. The text is read by
/// ``DateTimeText``, which the wire's strict RFC 3339 (`PushLedgerContract.RFC3339`) reads with too.
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
        let written: DateTimeText
        switch DateTimeText.parse(text, leapSecond: false) {
        case .success(let value): written = value
        case .failure(let failure): throw TimeParseError(.timestamp, text, failure.description)
        }
        guard let time = written.time else { return written.date.start(in: timeZone) }
        guard let seconds = written.secondsSince1970 else {
            let local = written.date.start(in: timeZone)
                .addingTimeInterval(TimeInterval(time.secondOfDay) + time.fractionSeconds)
            // A wall-clock time after a daylight-saving change within the day: re-read the offset then.
            let shift =
                timeZone.secondsFromGMT(for: written.date.start(in: timeZone)) - timeZone.secondsFromGMT(for: local)
            return local.addingTimeInterval(TimeInterval(shift))
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds) + time.fractionSeconds)
    }
}
