import Foundation

// timestamptz travels as text with microseconds. The session runs with TimeZone=UTC and
// DateStyle=ISO, so the server prints `YYYY-MM-DD HH:MM:SS[.ffffff]+00`.

extension Date: PostgresEncodable, PostgresDecodable {
    public static var postgresType: PostgresType { .timestamptz }

    public func encodePostgresText(into buffer: inout [UInt8]) {
        if self == .distantFuture { buffer.append(contentsOf: "infinity".utf8); return }
        if self == .distantPast { buffer.append(contentsOf: "-infinity".utf8); return }
        let micros = Int64((timeIntervalSince1970 * 1_000_000).rounded())
        var days = micros / 86_400_000_000
        var rest = micros % 86_400_000_000
        if rest < 0 { rest += 86_400_000_000; days -= 1 }
        let (y, m, d) = civil(fromDays: days)
        let seconds = rest / 1_000_000
        let fraction = rest % 1_000_000
        func pad(_ v: Int64, _ width: Int) { appendDecimal(v, into: &buffer, width: width) }
        pad(y, 4); buffer.append(UInt8(ascii: "-")); pad(m, 2); buffer.append(UInt8(ascii: "-")); pad(d, 2)
        buffer.append(UInt8(ascii: " "))
        pad(seconds / 3600, 2); buffer.append(UInt8(ascii: ":")); pad(seconds / 60 % 60, 2)
        buffer.append(UInt8(ascii: ":")); pad(seconds % 60, 2)
        buffer.append(UInt8(ascii: ".")); pad(fraction, 6)
        buffer.append(contentsOf: "+00".utf8)
    }

    public static func decodePostgresText(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        var p = TimestampParser(text: text)
        return p.parse()
    }
}

/// Days since 1970-01-01 → proleptic Gregorian (year, month, day) (H. Hinnant's algorithm).
func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
    let z = z0 + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
}

/// Proleptic Gregorian date → days since 1970-01-01.
func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
    let y = m <= 2 ? y0 - 1 : y0
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
}

/// Parses `YYYY-MM-DD[ HH:MM:SS[.f…]][±HH[:MM[:SS]]]`, `infinity` and `-infinity`.
private struct TimestampParser {
    let text: UnsafeBufferPointer<UInt8>
    var i = 0

    init(text: UnsafeBufferPointer<UInt8>) { self.text = text }

    mutating func number(_ width: Int) -> Int64? {
        guard i + width <= text.count else { return nil }
        var v: Int64 = 0
        for _ in 0..<width {
            let digit = text[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            v = v * 10 + Int64(digit)
            i += 1
        }
        return v
    }

    mutating func expect(_ c: Character) -> Bool {
        guard i < text.count, text[i] == c.asciiValue! else { return false }
        i += 1
        return true
    }

    mutating func parse() -> Date? {
        let whole = String(decoding: text, as: UTF8.self)
        if whole == "infinity" { return .distantFuture }
        if whole == "-infinity" { return .distantPast }
        // Years beyond 9999 print with more digits; read digits up to the dash.
        var yearDigits = 0
        while yearDigits < text.count, text[yearDigits] != UInt8(ascii: "-") { yearDigits += 1 }
        guard yearDigits >= 4, let y = number(yearDigits), expect("-"), let m = number(2), expect("-"),
            let d = number(2), (1...12).contains(m), (1...31).contains(d)
        else { return nil }
        var micros = days(fromCivil: y, m, d) * 86_400_000_000
        if i == text.count { return Date(timeIntervalSince1970: Double(micros) / 1_000_000) }
        guard expect(" ") || expect("T"), let hh = number(2), expect(":"), let mm = number(2), expect(":"),
            let ss = number(2)
        else { return nil }
        micros += ((hh * 60 + mm) * 60 + ss) * 1_000_000
        if expect(".") {
            var scale: Int64 = 100_000
            var fraction: Int64 = 0
            while i < text.count, text[i] &- UInt8(ascii: "0") < 10 {
                fraction += Int64(text[i] - UInt8(ascii: "0")) * scale
                scale /= 10
                i += 1
            }
            micros += fraction
        }
        if i < text.count {
            let sign: Int64
            if expect("+") { sign = 1 } else if expect("-") { sign = -1 } else { return nil }
            guard let oh = number(2) else { return nil }
            var offset = oh * 3600
            if expect(":") {
                guard let om = number(2) else { return nil }
                offset += om * 60
                if expect(":") {
                    guard let os = number(2) else { return nil }
                    offset += os
                }
            }
            micros -= sign * offset * 1_000_000
        }
        guard i == text.count else { return nil }
        return Date(timeIntervalSince1970: Double(micros) / 1_000_000)
    }
}
