/// Output formats of a table: boxed or plain terminal text, RFC 4180 CSV, Markdown, or JSON
/// (an array of objects keyed by column title).
public enum TableFormat: String, Sendable, CaseIterable {
    case table, text, csv, markdown, json
}

/// A titled ``Table`` with notes (mode labels, low-volume marks, an empty window): the one
/// renderer of every command's tables, as a boxed terminal table, plain text, CSV, Markdown or
/// JSON. Terminal forms show the columns a ``ColumnChoice`` picks; the others keep every field.
public struct ReportTable: Sendable, Hashable {
    /// Empty for a table without a title.
    public var title: String
    public var table: Table
    public var notes: [String]

    public init(title: String, table: Table, notes: [String] = []) {
        self.title = title
        self.table = table
        self.notes = notes
    }

    /// Columns right-align when every value in them reads as a number (marked rates included);
    /// `key` names the columns of the default terminal table (nil: all of them).
    public init(title: String, columns: [String], rows: [[Cell]], notes: [String] = [], key: [String]? = nil) {
        let columns = columns.indices.map { i in
            let values = rows.compactMap { $0.indices.contains(i) ? $0[i] : nil }.filter { $0 != .null }
            let numeric = !values.isEmpty && values.allSatisfy { ReportTable.looksNumeric($0.displayText) }
            return Table.Column(
                columns[i], alignment: numeric ? .right : .left, isKey: key?.contains(columns[i]) ?? true)
        }
        self.init(title: title, table: Table(columns: columns, rows: rows), notes: notes)
    }

    /// The table in `format`; `columns` shapes the terminal forms (`table`, `text`).
    public func rendered(_ format: TableFormat, columns: ColumnChoice = .key) -> String {
        switch format {
        case .table: return terminal(style: .unicode, columns: columns)
        case .text: return terminal(style: .plain, columns: columns)
        case .csv: return table.csv()
        case .markdown: return markdown()
        case .json: return table.json().jsonText(pretty: true) + "\n"
        }
    }

    /// Title, table, notes and what `columns` left out; the table within ``Table/terminalWidth``
    /// with the default columns, the notes always.
    public func terminal(style: Table.Style, columns choice: ColumnChoice = .key) -> String {
        var out = title.isEmpty ? "" : title + "\n"
        out += table.terminal(style: style, choice: choice)
        if table.rows.isEmpty { out += "(no rows)\n" }
        var notes = self.notes
        let shown = Set(table.choosing(choice).columns.map(\.title))
        var named = Set<String>()
        let hidden = table.columns.map(\.title).filter { !shown.contains($0) && named.insert($0).inserted }
        if !hidden.isEmpty {
            notes.append("more columns (--wide, or --columns by name): " + hidden.joined(separator: ", "))
        }
        // Notes are prose: wrapped at the terminal's width whichever columns the table shows.
        return out + notes.flatMap { TerminalText.wrap($0, width: Table.terminalWidth) }.map { $0 + "\n" }.joined()
    }

    public func markdown() -> String {
        var out = title.isEmpty ? "" : "### \(title)\n\n"
        out += table.markdown()
        if table.rows.isEmpty { out += "\n_(no rows)_\n" }
        if !notes.isEmpty { out += "\n" + notes.map { "_\($0)_\n" }.joined() }
        return out
    }

    static func looksNumeric(_ s: String) -> Bool {
        guard let first = s.first else { return false }
        return first.isNumber
            || ((first == "-" || first == "+" || first == "<") && s.dropFirst().first?.isNumber == true)
    }
}

extension Table {
    /// `text` broken at spaces into lines of at most `width` columns, the later ones indented
    /// by `indent` (a one-line sentence of a report or an alert, made readable in a terminal).
    public static func wrap(_ text: String, width: Int = terminalWidth, indent: String = "    ") -> String {
        let first = TerminalText.wrap(text, width: width)
        guard first.count > 1 else { return text }
        let head = first[0]
        let rest = String(text.dropFirst(head.count)).drop { $0 == " " }
        let tail = TerminalText.wrap(String(rest), width: width - TerminalText.width(indent)).map { indent + $0 }
        return ([head] + tail).joined(separator: "\n")
    }

    /// The table in `format` without title or notes.
    public func rendered(_ format: TableFormat, columns: ColumnChoice = .key) -> String {
        ReportTable(title: "", table: self).rendered(format, columns: columns)
    }
}
