/// Text that is not a valid week, date, time or duration. Its `description` is one line that
/// is safe to show (the input is echoed, cut to 64 characters).
public struct TimeParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the text was meant to be.
    public enum Kind: String, Sendable, Equatable {
        case week = "ISO week"
        case timestamp = "date or date-time"
        case duration = "duration"
    }

    public let kind: Kind
    public let input: String
    /// Why it was refused, e.g. "month must be 01 to 12".
    public let reason: String

    public init(_ kind: Kind, _ input: String, _ reason: String) {
        self.kind = kind
        self.input = input
        self.reason = reason
    }

    public var description: String {
        let shown = input.count > 64 ? input.prefix(64) + "…" : Substring(input)
        return "invalid \(kind.rawValue) '\(shown)': \(reason)"
    }
}

/// Reads ASCII digits and punctuation from UTF-8 bytes, for the hand-written time parsers;
/// generic so the date-time parser reads its caller's buffer in place, without a copy.
struct ByteScanner<Bytes: RandomAccessCollection<UInt8>> where Bytes.Index == Int {
    private let bytes: Bytes
    private(set) var index: Int

    init(_ bytes: Bytes) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    var isAtEnd: Bool { index == bytes.endIndex }
    var peek: UInt8? { isAtEnd ? nil : bytes[index] }

    /// Consumes `byte` if it is next.
    mutating func skip(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    /// Consumes the next byte if it is one of `choices`, and returns it.
    mutating func skip(anyOf choices: [UInt8]) -> UInt8? {
        guard let byte = peek, choices.contains(byte) else { return nil }
        index += 1
        return byte
    }

    /// Consumes exactly `count` digits, or nothing.
    mutating func digits(exactly count: Int) -> Int? {
        guard index + count <= bytes.endIndex else { return nil }
        var value = 0
        for at in index..<(index + count) {
            guard let digit = Self.digit(bytes[at]) else { return nil }
            value = value * 10 + digit
        }
        index += count
        return value
    }

    /// Consumes a run of digits (at most `limit` of them are significant) and returns the
    /// value and the number of digits consumed; nil when there is no digit.
    mutating func digitRun(significant limit: Int) -> (value: Int, count: Int)? {
        var value = 0, count = 0
        while let byte = peek, let digit = Self.digit(byte) {
            if count < limit { value = value * 10 + digit }
            count += 1
            index += 1
        }
        return count == 0 ? nil : (value, count)
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
    }
}
