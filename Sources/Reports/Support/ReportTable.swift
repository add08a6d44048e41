import Foundation

/// A titled table of display strings with notes, rendered as an aligned terminal table, CSV
/// (RFC 4180) or a Markdown table. Reports build these; numbers are formatted before.
public struct ReportTable: Sendable, Equatable {
    public var title: String
    public var columns: [String]
    public var rows: [[String]]
    /// Lines shown under the table (mode labels, low-volume marks, empty-window notice).
    public var notes: [String]

    public init(title: String, columns: [String], rows: [[String]], notes: [String] = []) {
        self.title = title
        self.columns = columns
        self.rows = rows
        self.notes = notes
    }

    /// Renders as `table`, `text` (the same), `csv` or `markdown`.
    public func rendered(_ format: ReportFormat) -> String? {
        switch format {
        case .table, .text: return aligned()
        case .csv: return csv()
        case .markdown: return markdown()
        case .json, .html: return nil
        }
    }

    /// Columns padded to their widest cell; text left-aligned, numbers right-aligned.
    func aligned() -> String {
        let all = [columns] + rows
        let widths = columns.indices.map { i in all.map { $0.indices.contains(i) ? $0[i].count : 0 }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            columns.indices.map { i in
                let cell = cells.indices.contains(i) ? cells[i] : ""
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                return Self.looksNumeric(cell) ? pad + cell : cell + pad
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        var out = [title, line(columns), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
        out += rows.map(line)
        if rows.isEmpty { out.append("(no rows)") }
        out += notes
        return out.joined(separator: "\n") + "\n"
    }

    /// Header then rows; notes are not data, so CSV leaves them out.
    func csv() -> String {
        ([columns] + rows).map { $0.map(Self.csvField).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    func markdown() -> String {
        func line(_ cells: [String]) -> String {
            "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |"
        }
        var out = ["### \(title)", "", line(columns), "| " + columns.map { _ in "---" }.joined(separator: " | ") + " |"]
        out += rows.map(line)
        if rows.isEmpty { out.append(line(columns.indices.map { $0 == 0 ? "(no rows)" : "" })) }
        if !notes.isEmpty { out += [""] + notes.map { "_\($0)_" } }
        return out.joined(separator: "\n") + "\n"
    }

    static func csvField(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func looksNumeric(_ s: String) -> Bool {
        guard let first = s.first else { return false }
        return first.isNumber || ((first == "-" || first == "+") && s.count > 1 && s.dropFirst().first!.isNumber)
    }
}

/// Display formatting shared by the renderers.
enum Display {
    /// "12.3%", or "–" for a null rate.
    static func percent(_ value: Double?, digits: Int = 1) -> String {
        guard let value else { return "–" }
        return String(format: "%.\(digits)f%%", value * 100)
    }

    /// "+1.2 pp" / "-0.4 pp", or "–".
    static func points(_ value: Double?) -> String {
        guard let value else { return "–" }
        return String(format: "%+.1f pp", value)
    }

    /// A signed count change: "+12" / "-3" / "0".
    static func change(_ value: Int) -> String { value > 0 ? "+\(value)" : "\(value)" }

    /// A p-value to three significant places, "<0.001" below that.
    static func pValue(_ p: Double?) -> String {
        guard let p else { return "–" }
        return p < 0.001 ? "<0.001" : String(format: "%.3f", p)
    }

    static func hours(_ h: Double?) -> String {
        guard let h else { return "–" }
        return String(format: "%.1f h", h)
    }

    /// RFC 3339 UTC with milliseconds, as the JSON outputs carry times.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!))
    }

    /// "YYYY-MM-DD" (UTC).
    static func day(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).year().month().day())
    }
}
