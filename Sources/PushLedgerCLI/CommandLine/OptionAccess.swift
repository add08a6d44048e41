import Foundation
import PushLedgerSupport

/// A value a command could not use: bad usage (exit 64) with a one-line reason, thrown by the
/// typed accessors instead of crashing on a missing or malformed value.
public struct OptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// E.g. "invalid value 'x' for '--threads': expected a whole number".
    public let reason: String

    public init(_ reason: String) { self.reason = reason }

    public var exitCode: Int32 { UsageError.exitCode }
    public var description: String { reason }
}

/// A type an option's text reads as.
public protocol OptionValue: Sendable {
    /// The value `text` spells, or nil when it spells none.
    static func option(from text: String) -> Self?
    /// What a valid value looks like, for the error message.
    static var optionExpectation: String { get }
}

extension String: OptionValue {
    public static func option(from text: String) -> String? { text }
    public static var optionExpectation: String { "text" }
}

extension Int: OptionValue {
    public static func option(from text: String) -> Int? { Int(text) }
    public static var optionExpectation: String { "a whole number" }
}

extension Double: OptionValue {
    public static func option(from text: String) -> Double? { Double(text).flatMap { $0.isFinite ? $0 : nil } }
    public static var optionExpectation: String { "a number" }
}

extension TimeSpan: OptionValue {
    public static func option(from text: String) -> TimeSpan? { TimeSpan(text) }
    public static var optionExpectation: String { "a duration such as 24h or 7d" }
}

extension ISOWeek: OptionValue {
    public static func option(from text: String) -> ISOWeek? { ISOWeek(text) }
    public static var optionExpectation: String { "an ISO week such as 2026-W48" }
}

extension Date: OptionValue {
    /// A date or date-time; one without an offset is UTC.
    public static func option(from text: String) -> Date? { try? Timestamp.parseInstant(text) }
    public static var optionExpectation: String { "an ISO 8601 date or time" }
}

extension ParsedCommand {
    /// The value of option `name` as `T`; missing (no command line, environment or default) or
    /// malformed is an ``OptionError``.
    public func value<T: OptionValue>(_ type: T.Type = T.self, _ name: String) throws(OptionError) -> T {
        guard let value = try optional(type, name) else { throw OptionError("missing option '--\(name)'") }
        return value
    }

    /// The value of option `name` as `T`, or nil when it has none; malformed is an ``OptionError``.
    public func optional<T: OptionValue>(_ type: T.Type = T.self, _ name: String) throws(OptionError) -> T? {
        guard let text = string(name) else { return nil }
        guard let value = T.option(from: text) else {
            throw OptionError("invalid value '\(text)' for '--\(name)': expected \(T.optionExpectation)")
        }
        return value
    }

    /// A whole-number option within `range`.
    public func int(_ name: String, in range: ClosedRange<Int> = Int.min...Int.max) throws(OptionError) -> Int {
        let value = try value(Int.self, name)
        guard range.contains(value) else {
            let bounds = range.upperBound == Int.max ? "at least \(range.lowerBound)" : "between \(range.lowerBound) and \(range.upperBound)"
            throw OptionError("--\(name) must be \(bounds), got \(value)")
        }
        return value
    }

    /// A whole-number option of at least 1.
    public func positive(_ name: String) throws(OptionError) -> Int { try int(name, in: 1...Int.max) }

    /// One of an enumeration's raw values (a `.choice` option such as `--format`).
    public func choice<T: RawRepresentable & CaseIterable>(_ type: T.Type, _ name: String) throws(OptionError) -> T
    where T.RawValue == String {
        let text = try value(String.self, name)
        guard let value = T(rawValue: text) else {
            let names = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw OptionError("invalid value '\(text)' for '--\(name)': expected one of \(names)")
        }
        return value
    }

    /// The value of positional argument `name`; missing is an ``OptionError``.
    public func argument(_ name: String) throws(OptionError) -> String {
        guard let value = positional(name) else { throw OptionError("missing argument <\(name)>") }
        return value
    }
}
