import PushLedgerRules
import PushLedgerSupport

/// One value of a rendered table. Typed, so numbers right-align and a missing value can be
/// shown as each output wants it (`—` in a terminal, empty in CSV).
public enum Cell: Sendable, Hashable {
    case text(String)
    case integer(Int)
    /// A number shown with a fixed count of decimals.
    case number(Double, digits: Int)
    /// A fraction (0.123) shown as a percentage (`12.3%`).
    case percent(Double, digits: Int)
    /// A difference of two fractions shown in percentage points (`+1.5 pp`).
    case points(Double, digits: Int)
    /// No value (a rate whose denominator is 0).
    case null

    /// A rate as a percentage, or null when its denominator is 0.
    public static func rate(_ rate: Rate, digits: Int = 1) -> Cell {
        rate.value.map { .percent($0, digits: digits) } ?? .null
    }

    /// Whether the cell is a number, for automatic right alignment.
    var isNumeric: Bool {
        switch self {
        case .text: return false
        case .integer, .number, .percent, .points: return true
        case .null: return false
        }
    }

    /// The text as a terminal shows it: `—` for ``null``.
    public var displayText: String { text ?? "—" }

    /// The cell as JSON: numbers stay numbers (a fraction, not its percentage), null is null.
    public var jsonValue: JSONValue {
        switch self {
        case .text(let text): .string(text)
        case .integer(let value): .int(value)
        case .number(let value, _), .percent(let value, _), .points(let value, _): .double(value)
        case .null: .null
        }
    }

    /// The text of a value; nil for ``null``.
    var text: String? {
        switch self {
        case .text(let text): return text
        case .integer(let value): return String(value)
        case .number(let value, let digits): return Format.fixed(value, digits: digits)
        case .percent(let value, let digits): return Format.percent(value, digits: digits)
        case .points(let value, let digits): return Format.points(value, digits: digits)
        case .null: return nil
        }
    }
}

extension Cell: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
}

/// Locale-independent number formatting for reports (always `.` as the decimal mark).
public enum Format {
    /// `value` with exactly `digits` decimals, rounded half away from zero; never `-0.0`.
    public static func fixed(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "NaN" : (value < 0 ? "-Inf" : "Inf") }
        let digits = max(0, min(digits, 15))
        let scale = (0..<digits).reduce(1.0) { product, _ in product * 10 }
        let scaled = (abs(value) * scale).rounded()
        // Past 2^53 a Double has no fractional digits left to show; print it as Swift does.
        guard scaled < 9_007_199_254_740_992 else { return String(value) }
        let units = UInt64(scaled)
        let divisor = UInt64(scale)
        let whole = String(units / divisor)
        let sign = value < 0 && units != 0 ? "-" : ""
        guard digits > 0 else { return sign + whole }
        let fraction = String(units % divisor)
        return sign + whole + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// A fraction as a percentage: 0.1234 → `12.3%`.
    public static func percent(_ fraction: Double, digits: Int = 1) -> String {
        fixed(fraction * 100, digits: digits) + "%"
    }

    /// A difference of fractions in percentage points, signed unless zero: 0.015 → `+1.5 pp`.
    public static func points(_ difference: Double, digits: Int = 1) -> String {
        signed(fixed(difference * 100, digits: digits)) + " pp"
    }

    /// The relative change of a count, signed unless zero: 200 → 250 is `+25.0%`; nil when
    /// `old` is 0 (no base to compare with).
    public static func relativeChange(from old: Double, to new: Double, digits: Int = 1) -> String? {
        guard old != 0 else { return nil }
        return signed(fixed((new - old) / abs(old) * 100, digits: digits)) + "%"
    }

    private static func signed(_ text: String) -> String {
        text.hasPrefix("-") || text.allSatisfy({ $0 == "0" || $0 == "." }) ? text : "+" + text
    }
}
