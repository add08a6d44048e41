import Foundation
import OutcomeEngine
import PushLedgerRules
import PushLedgerSupport
import TableRendering

/// Display formatting shared by the reports, on top of the core ``Format``.
enum Display {
    /// A rate as a percentage; "*" marks a denominator under 30; null when undefined.
    static func rate(_ rate: Rate, digits: Int = 1) -> Cell {
        guard let value = rate.value else { return .null }
        return rate.isLowVolume ? .text(Format.percent(value, digits: digits) + "*") : .percent(value, digits: digits)
    }

    /// A rate as its exact fraction, for CSV; empty when undefined.
    static func fraction(_ rate: Rate?) -> Cell { rate?.value.map { .text("\($0)") } ?? .null }

    /// "12.3%", or "—" for a null rate.
    static func percent(_ value: Double?, digits: Int = 1) -> String {
        value.map { Format.percent($0, digits: digits) } ?? "—"
    }

    /// A difference already in percentage points: "+1.2 pp", or "—".
    static func points(_ value: Double?) -> String {
        value.map { Format.points($0 / 100) } ?? "—"
    }

    /// The change of a rate from `previous` to `current`, as a points cell.
    static func change(_ current: Rate, from previous: Rate) -> Cell {
        guard let c = current.value, let p = previous.value else { return .null }
        return .points(c - p, digits: 1)
    }

    /// A signed count change: "+12" / "-3" / "0".
    static func change(_ value: Int) -> Cell { .text(value > 0 ? "+\(value)" : "\(value)") }

    /// A p-value to three places, "<0.001" below that.
    static func pValue(_ p: Double?) -> String {
        guard let p else { return "—" }
        return p < 0.001 ? "<0.001" : Format.fixed(p, digits: 3)
    }

    static func hours(_ h: Double?) -> Cell { h.map { .number($0, digits: 1) } ?? .null }

    /// RFC 3339 UTC with milliseconds, as the JSON outputs carry times.
    static func timestamp(_ date: Date) -> String { Timestamp.rfc3339(date) }

    /// "YYYY-MM-DD" (UTC).
    static func day(_ date: Date) -> String { String(Timestamp.rfc3339(date).prefix(10)) }
}

extension ReportFormat {
    /// The table format of the same name; nil for `html`.
    var tableFormat: TableFormat? { TableFormat(rawValue: rawValue) }
}

extension ColumnChoice {
    /// The choice checked against a report's tables; an unknown column is a bad query.
    func checked(_ tables: [ReportTable]) throws(ReportError) -> ColumnChoice {
        do {
            return try checked(against: tables.map(\.table))
        } catch {
            throw ReportError.invalidQuery(error.reason)
        }
    }
}
