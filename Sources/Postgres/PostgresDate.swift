import Foundation
import PushLedgerSupport

// timestamptz travels as text with microseconds. The session runs with TimeZone=UTC and
// DateStyle=ISO, so the server prints `YYYY-MM-DD HH:MM:SS[.ffffff]+00`.

extension Date: PostgresEncodable, PostgresDecodable {
    public static var postgresType: PostgresType { .timestamptz }

    /// The instant rounded to the microsecond, timestamptz's precision: what both the text and
    /// the binary form carry.
    var microsecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1_000_000).rounded()) }

    public func encodePostgresText(into buffer: inout [UInt8]) {
        if self == .distantFuture {
            buffer.append(contentsOf: "infinity".utf8)
            return
        }
        if self == .distantPast {
            buffer.append(contentsOf: "-infinity".utf8)
            return
        }
        let micros = microsecondsSince1970
        var days = micros / 86_400_000_000
        var rest = micros % 86_400_000_000
        if rest < 0 {
            rest += 86_400_000_000
            days -= 1
        }
        let date = CivilDate(daysSinceEpoch: Int(days))
        let (y, m, d) = (Int64(date.year), Int64(date.month), Int64(date.day))
        let seconds = rest / 1_000_000
        let fraction = rest % 1_000_000
        func pad(_ v: Int64, _ width: Int) { appendDecimal(v, into: &buffer, width: width) }
        pad(y, 4)
        buffer.append(UInt8(ascii: "-"))
        pad(m, 2)
        buffer.append(UInt8(ascii: "-"))
        pad(d, 2)
        buffer.append(UInt8(ascii: " "))
        pad(seconds / 3600, 2)
        buffer.append(UInt8(ascii: ":"))
        pad(seconds / 60 % 60, 2)
        buffer.append(UInt8(ascii: ":"))
        pad(seconds % 60, 2)
        buffer.append(UInt8(ascii: "."))
        pad(fraction, 6)
        buffer.append(contentsOf: "+00".utf8)
    }

    public static func decodePostgresText(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        var p = TimestampParser(text: text)
        return p.parse()
    }
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
            let d = number(2), let date = CivilDate(year: Int(y), month: Int(m), day: Int(d))
        else { return nil }
        var micros = Int64(date.daysSinceEpoch) * 86_400_000_000
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
