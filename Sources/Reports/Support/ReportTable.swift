import Foundation
import PushLedgerSupport
import PushLedgerRules
import PushLedgerCLI

/// A titled ``Table`` with notes (mode labels, low-volume marks, an empty window), rendered by
/// the core renderers: a boxed terminal table, plain text, RFC 4180 CSV or Markdown.
public struct ReportTable: Sendable, Hashable {
    public var title: String
    public var table: Table
    public var notes: [String]

    public init(title: String, table: Table, notes: [String] = []) {
        self.title = title
        self.table = table
        self.notes = notes
    }

    /// Columns right-align when every value in them reads as a number (marked rates included).
    init(title: String, columns: [String], rows: [[Cell]], notes: [String] = []) {
        let columns = columns.indices.map { i in
            let values = rows.compactMap { $0.indices.contains(i) ? $0[i] : nil }.filter { $0 != .null }
            let numeric = !values.isEmpty && values.allSatisfy { ReportTable.looksNumeric(Display.text($0)) }
            return Table.Column(columns[i], alignment: numeric ? .right : .left)
        }
        self.init(title: title, table: Table(columns: columns, rows: rows), notes: notes)
    }

    /// Renders as `table` (boxed), `text` (plain columns), `csv` or `markdown`; nil otherwise.
    public func rendered(_ format: ReportFormat) -> String? {
        switch format {
        case .table: return terminal(style: .unicode)
        case .text: return terminal(style: .plain)
        case .csv: return table.csv()
        case .markdown: return markdown()
        case .json, .html: return nil
        }
    }

    func terminal(style: Table.Style) -> String {
        var out = title + "\n" + table.terminal(style: style)
        if table.rows.isEmpty { out += "(no rows)\n" }
        return out + notes.map { $0 + "\n" }.joined()
    }

    func markdown() -> String {
        var out = "### \(title)\n\n" + table.markdown()
        if table.rows.isEmpty { out += "\n_(no rows)_\n" }
        if !notes.isEmpty { out += "\n" + notes.map { "_\($0)_\n" }.joined() }
        return out
    }

    static func looksNumeric(_ s: String) -> Bool {
        guard let first = s.first else { return false }
        return first.isNumber || ((first == "-" || first == "+" || first == "<") && s.dropFirst().first?.isNumber == true)
    }
}

/// Display formatting shared by the renderers, on top of the core ``Format``.
enum Display {
    /// The text of a cell as the terminal shows it ("—" for null).
    static func text(_ cell: Cell) -> String {
        switch cell {
        case .text(let text): return text
        case .integer(let value): return String(value)
        case .number(let value, let digits): return Format.fixed(value, digits: digits)
        case .percent(let value, let digits): return Format.percent(value, digits: digits)
        case .points(let value, let digits): return Format.points(value, digits: digits)
        case .null: return "—"
        }
    }

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
