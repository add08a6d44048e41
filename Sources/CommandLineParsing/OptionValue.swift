import Foundation
import PushLedgerSupport

/// A value a command could not use: bad usage (``ExitCode/usage``) with a one-line reason, for the checks
/// a declaration cannot express (two options that exclude each other, a bound that depends on
/// another option).
public struct OptionError: ExitCoded, Sendable, Equatable, CustomStringConvertible {
    /// E.g. "--tls-key needs --tls-cert".
    public let reason: String

    public init(_ reason: String) { self.reason = reason }

    public var exitCode: ExitCode { .usage }
    public var description: String { reason }
}

/// A type an option's or argument's text reads as. Declaring `@Option var n: Int` is what makes
/// `--n x` a usage error naming what was expected; nothing reads the text again after parsing.
public protocol OptionValue: Sendable {
    /// The value `text` spells, or nil when it spells none.
    static func option(from text: String) -> Self?
    /// What a valid value looks like, for the error message.
    static var optionExpectation: String { get }
    /// How the parser checks and help shows the text (placeholder, choices).
    static var valueType: ValueType { get }
    /// The text that spells this value (for defaults in help, and choices).
    var optionText: String { get }
}

extension OptionValue {
    public static var valueType: ValueType { .string }
    public var optionText: String { "\(self)" }
}

/// Enumerations read as one of their raw values: `extension ReportFormat: OptionValue {}`.
extension OptionValue where Self: RawRepresentable & CaseIterable, RawValue == String {
    public static func option(from text: String) -> Self? { Self(rawValue: text) }
    public static var optionExpectation: String { "one of " + allCases.map(\.rawValue).joined(separator: ", ") }
    public static var valueType: ValueType { .choice(allCases.map(\.rawValue)) }
    public var optionText: String { rawValue }
}

extension String: OptionValue {
    public static func option(from text: String) -> String? { text }
    public static var optionExpectation: String { "text" }
}

extension Int: OptionValue {
    public static func option(from text: String) -> Int? { Int(text) }
    public static var optionExpectation: String { "a whole number" }
    public static var valueType: ValueType { .integer }
}

extension Double: OptionValue {
    public static func option(from text: String) -> Double? { Double(text).flatMap { $0.isFinite ? $0 : nil } }
    public static var optionExpectation: String { "a number" }
    public static var valueType: ValueType { .number }
}

extension TimeSpan: OptionValue {
    public static func option(from text: String) -> TimeSpan? { TimeSpan(text) }
    public static var optionExpectation: String { "a duration such as 24h or 7d" }
    public static var valueType: ValueType { .duration }
    public var optionText: String { description }
}

extension ISOWeek: OptionValue {
    public static func option(from text: String) -> ISOWeek? { ISOWeek(text) }
    public static var optionExpectation: String { "an ISO week such as 2026-W48" }
    public static var valueType: ValueType { .week }
    public var optionText: String { description }
}

extension Date: OptionValue {
    /// A date or date-time; one without an offset is UTC (``LocalTime`` reads it in a zone).
    public static func option(from text: String) -> Date? { try? Timestamp.parseInstant(text) }
    public static var optionExpectation: String { "an ISO 8601 date or time" }
    public static var valueType: ValueType { .timestamp }
    public var optionText: String { Timestamp.rfc3339(self) }
}

extension UUID: OptionValue {
    public static func option(from text: String) -> UUID? { UUID(uuidString: text) }
    public static var optionExpectation: String { "a UUID" }
    public var optionText: String { uuidString.lowercased() }
}

/// A date or date-time as typed, read in the time zone the command decides (an offset in the
/// text wins): `report provider-check` reads its days in Los Angeles time.
public struct LocalTime: OptionValue, Equatable {
    public let text: String

    public static func option(from text: String) -> LocalTime? {
        (try? Timestamp.parseInstant(text)) == nil ? nil : LocalTime(text: text)
    }
    public static var optionExpectation: String { "an ISO 8601 date or time" }
    public static var valueType: ValueType { .timestamp }
    public var optionText: String { text }

    /// The instant, a time without an offset being local to `timeZone`.
    public func date(in timeZone: TimeZone) -> Date {
        // Checked when parsed; the zone only moves a valid local time.
        (try? Timestamp.parseInstant(text, timeZone: timeZone)) ?? .distantPast
    }
}
