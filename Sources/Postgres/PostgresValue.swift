import Foundation

/// A PostgreSQL type OID, sent with each bind so `$n` has a definite type.
public struct PostgresType: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let unknown = PostgresType(rawValue: 0)
    public static let bool = PostgresType(rawValue: 16)
    public static let bytea = PostgresType(rawValue: 17)
    public static let int8 = PostgresType(rawValue: 20)
    public static let int2 = PostgresType(rawValue: 21)
    public static let int4 = PostgresType(rawValue: 23)
    public static let text = PostgresType(rawValue: 25)
    public static let float8 = PostgresType(rawValue: 701)
    public static let timestamptz = PostgresType(rawValue: 1184)
    public static let uuid = PostgresType(rawValue: 2950)
}

/// A Swift value that can be sent to PostgreSQL in text format (as a bind or a COPY field), and
/// in binary format as a field of a composite (RecordArray).
public protocol PostgresEncodable {
    static var postgresType: PostgresType { get }
    /// Appends the value's text representation (unescaped).
    func encodePostgresText(into buffer: inout [UInt8])
    /// Appends the value's binary representation as a field of type `type`; false when it cannot
    /// be one (by default: text fields only, as its text).
    func encodePostgresBinary(as type: PostgresType, into buffer: inout [UInt8]) -> Bool
}

/// A Swift value that can be read from a text-format result column.
public protocol PostgresDecodable {
    /// Parses the column text; returns nil when the text is not a valid value of this type.
    static func decodePostgresText(_ text: UnsafeBufferPointer<UInt8>) -> Self?
    /// The value for SQL NULL: nil for non-optional types (NULL is then a decoding error).
    static var postgresNull: Self? { get }
}

extension PostgresDecodable {
    public static var postgresNull: Self? { nil }
}

extension String: PostgresEncodable, PostgresDecodable {
    public static var postgresType: PostgresType { .text }
    public func encodePostgresText(into buffer: inout [UInt8]) { buffer.append(contentsOf: utf8) }
    public static func decodePostgresText(_ text: UnsafeBufferPointer<UInt8>) -> String? {
        String(decoding: text, as: UTF8.self)
    }
}

// Digits straight into the buffer: a String per value was a large part of encoding a COPY row.
func appendDecimal<T: BinaryInteger>(_ value: T, into buffer: inout [UInt8], width: Int = 1) {
    var magnitude = value.magnitude
    if value < 0 { buffer.append(UInt8(ascii: "-")) }
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: the 20 digits of UInt64.max and then some
    let count = withUnsafeMutableBytes(of: &digits) { scratch -> Int in
        var n = 0
        repeat {
            scratch[n] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
            n += 1
        } while magnitude != 0
        return n
    }
    if width > count { buffer.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - count)) }
    withUnsafeBytes(of: &digits) { scratch in
        for i in stride(from: count - 1, through: 0, by: -1) { buffer.append(scratch[i]) }
    }
}

private func parseInteger<T: FixedWidthInteger>(_ text: UnsafeBufferPointer<UInt8>) -> T? {
    guard !text.isEmpty else { return nil }
    var index = 0
    var negative = false
    if text[0] == UInt8(ascii: "-") || text[0] == UInt8(ascii: "+") {
        negative = text[0] == UInt8(ascii: "-")
        index = 1
        guard text.count > 1 else { return nil }
    }
    var value: T = 0
    while index < text.count {
        let digit = text[index] &- UInt8(ascii: "0")
        guard digit < 10 else { return nil }
        let (m, o1) = value.multipliedReportingOverflow(by: 10)
        let (s, o2) = negative ? m.subtractingReportingOverflow(T(digit)) : m.addingReportingOverflow(T(digit))
        guard !o1, !o2 else { return nil }
        value = s
        index += 1
    }
    return value
}

extension Int: PostgresEncodable, PostgresDecodable {
    public static var postgresType: PostgresType { .int8 }
    public func encodePostgresText(into buffer: inout [UInt8]) { appendDecimal(self, into: &buffer) }
    public static func decodePostgresText(_ text: UnsafeBufferPointer<UInt8>) -> Int? { parseInteger(text) }
}

extension Int64: PostgresEncodable, PostgresDecodable {
    public static var postgresType: PostgresType { .int8 }
    public func encodePostgresText(into buffer: inout [UInt8]) { appendDecimal(self, into: &buffer) }
    public static func decodePostgresText(_ text: UnsafeBufferPointer<UInt8>) -> Int64? { parseInteger(text) }
}

extension Int32: PostgresEncodable, PostgresDecodable {
    public static var postgresType: PostgresType { .int4 }
    public func encodePostgresText(into buffer: inout [UInt8]) { appendDecimal(self, into: &buffer) }
    public static func decodePostgresText(_ text: UnsafeBufferPointer<UInt8>) -> Int32? { parseInteger(text) }
}

extension Int16: PostgresEncodable, PostgresDecodable {
    public static var postgresType: PostgresType { .int2 }
    public func encodePostgresText(into buffer: inout [UInt8]) { appendDecimal(self, into: &buffer) }
    public static func decodePostgresText(_ text: UnsafeBufferPointer<UInt8>) -> Int16? { parseInteger(text) }
}

extension Double: PostgresEncodable, PostgresDecodable {
    public static var postgresType: PostgresType { .float8 }
    public func encodePostgresText(into buffer: inout [UInt8]) {
        let text: String
        if isNaN {
            text = "NaN"
        } else if isInfinite {
            text = self < 0 ? "-Infinity" : "Infinity"
        } else {
            text = "\(self)"
        }
        buffer.append(contentsOf: text.utf8)
    }
    public static func decodePostgresText(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        Double(String(decoding: text, as: UTF8.self))
    }
}

extension Bool: PostgresEncodable, PostgresDecodable {
    public static var postgresType: PostgresType { .bool }
    public func encodePostgresText(into buffer: inout [UInt8]) {
        buffer.append(contentsOf: (self ? "true" : "false").utf8)
    }
    public static func decodePostgresText(_ text: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard text.count == 1 else { return nil }
        switch text[0] {
        case UInt8(ascii: "t"): return true
        case UInt8(ascii: "f"): return false
        default: return nil
        }
    }
}

extension UUID: PostgresEncodable, PostgresDecodable {
    public static var postgresType: PostgresType { .uuid }
    public func encodePostgresText(into buffer: inout [UInt8]) {
        // Lower-case hex from the bytes: uuidString.lowercased() went through Foundation strings.
        let hex: StaticString = "0123456789abcdef"
        withUnsafeBytes(of: uuid) { bytes in
            hex.withUTF8Buffer { digits in
                for (i, byte) in bytes.enumerated() {
                    if i == 4 || i == 6 || i == 8 || i == 10 { buffer.append(UInt8(ascii: "-")) }
                    buffer.append(digits[Int(byte >> 4)])
                    buffer.append(digits[Int(byte & 0x0f)])
                }
            }
        }
    }
    public static func decodePostgresText(_ text: UnsafeBufferPointer<UInt8>) -> UUID? {
        UUID(uuidString: String(decoding: text, as: UTF8.self))
    }
}

extension Array: PostgresEncodable where Element == UInt8 {
    public static var postgresType: PostgresType { .bytea }
    public func encodePostgresText(into buffer: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        buffer.append(UInt8(ascii: "\\"))
        buffer.append(UInt8(ascii: "x"))
        for byte in self {
            buffer.append(hex[Int(byte >> 4)])
            buffer.append(hex[Int(byte & 0x0f)])
        }
    }
}

extension Array: PostgresDecodable where Element == UInt8 {
    public static func decodePostgresText(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard text.count >= 2, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x"), text.count % 2 == 0 else {
            return nil
        }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 2 - 1)
        var i = 2
        while i < text.count {
            guard let hi = nibble(text[i]), let lo = nibble(text[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public static func decodePostgresText(_ text: UnsafeBufferPointer<UInt8>) -> Wrapped?? {
        Wrapped.decodePostgresText(text).map { .some($0) }
    }
    public static var postgresNull: Wrapped?? { .some(.none) }
}
