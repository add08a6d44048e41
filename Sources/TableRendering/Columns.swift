/// Which columns a terminal table shows: its key columns (the default, fitted to
/// ``Table/terminalWidth``), all of them (`--wide`), or the ones named (`--columns a,b`).
/// JSON and CSV always carry every field.
public enum ColumnChoice: Sendable, Equatable {
    case key
    case all
    case named([String])

    /// The choice for `tables`: a named column must be one of theirs.
    public func checked(against tables: [Table]) throws(UnknownColumnError) -> ColumnChoice {
        guard case .named(let names) = self else { return self }
        let known = tables.flatMap { $0.columns.map(\.title) }
        if let unknown = names.first(where: { !known.contains($0) }) {
            var seen = Set<String>()
            let list = known.filter { seen.insert($0).inserted }.joined(separator: ", ")
            throw UnknownColumnError(reason: "unknown column '\(unknown)' (columns: \(list))")
        }
        return self
    }
}

/// A column named that no table has.
public struct UnknownColumnError: Error, Sendable, Equatable {
    /// E.g. "unknown column 'nope' (columns: channel, sends)".
    public let reason: String
}

extension Table {
    /// The columns `choice` shows, in the table's order for `.key`/`.all` and in the order
    /// named for `.named` (a table holding none of the named columns shows its key columns).
    public func choosing(_ choice: ColumnChoice) -> Table {
        let indices: [Int]
        switch choice {
        case .all: return self
        case .key: indices = columns.indices.filter { columns[$0].isKey }
        case .named(let names):
            let named = names.flatMap { name in columns.indices.filter { columns[$0].title == name } }
            indices = named.isEmpty ? columns.indices.filter { columns[$0].isKey } : named
        }
        guard indices.count != columns.count else { return self }
        let rows = normalizedRows
        return Table(columns: indices.map { columns[$0] }, rows: rows.map { row in indices.map { row[$0] } })
    }

    /// Columns left out by `choice`.
    public func hiddenCount(_ choice: ColumnChoice) -> Int { columns.count - choosing(choice).columns.count }

    /// The table for a terminal as `choice` asks: the default fits ``terminalWidth``.
    public func terminal(style: Style = .unicode, choice: ColumnChoice) -> String {
        choosing(choice).terminal(style: style, maxWidth: choice == .key ? Self.terminalWidth : nil)
    }
}
