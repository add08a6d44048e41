/// A table of report rows, rendered for a terminal, as CSV or as Markdown.
public struct Table: Sendable, Hashable {
    public enum Alignment: Sendable, Hashable {
        case left
        case right
        /// Right when every non-null cell of the column is a number, else left.
        case automatic
    }

    public struct Column: Sendable, Hashable {
        public var title: String
        public var alignment: Alignment
        /// Shown in the default terminal table; the others need `--wide` or `--columns`.
        public var isKey: Bool

        public init(_ title: String, alignment: Alignment = .automatic, isKey: Bool = true) {
            self.title = title
            self.alignment = alignment
            self.isKey = isKey
        }
    }

    /// Columns a default terminal table may take: it fits in a terminal and when piped.
    public static let terminalWidth = 120

    /// Box drawing for terminal output.
    public enum Style: Sendable, Hashable {
        /// `┌─┬─┐` lines.
        case unicode
        /// `+-+-+` lines, for terminals and logs that mangle non-ASCII.
        case ascii
        /// No lines: columns separated by two spaces, the header underlined.
        case plain
    }

    public var columns: [Column]
    /// Each row has one cell per column (missing cells render as null, extra ones are ignored).
    public var rows: [[Cell]]

    public init(columns: [Column], rows: [[Cell]] = []) {
        self.columns = columns
        self.rows = rows
    }

    /// A table whose columns align automatically.
    public init(headers: [String], rows: [[Cell]] = []) {
        self.init(columns: headers.map { Column($0) }, rows: rows)
    }

    /// Rows padded or cut to the column count.
    var normalizedRows: [[Cell]] {
        rows.map { row in
            row.count == columns.count
                ? row
                : Array(row.prefix(columns.count)) + Array(repeating: .null, count: max(0, columns.count - row.count))
        }
    }

    /// Whether column `index` right-aligns.
    func isRightAligned(_ index: Int, rows: [[Cell]]) -> Bool {
        switch columns[index].alignment {
        case .left: return false
        case .right: return true
        case .automatic:
            let values = rows.map { $0[index] }.filter { $0 != .null }
            return !values.isEmpty && values.allSatisfy(\.isNumeric)
        }
    }

    /// Aligned columns for a terminal. Control characters in cells become spaces, so data
    /// (campaign names, app versions) can't move the cursor or inject escape sequences.
    /// With `maxWidth`, the widest text columns are cut (ending in `…`) until every line fits.
    public func terminal(style: Style = .unicode, maxWidth: Int? = nil) -> String {
        let rows = normalizedRows
        let nullText = style == .unicode ? "—" : "-"
        var header = columns.map { TerminalText.sanitize($0.title) }
        var body = rows.map { row in row.map { TerminalText.sanitize($0.text ?? nullText) } }
        var widths = columns.indices.map { index in
            ([header[index]] + body.map { $0[index] }).map(TerminalText.width).max() ?? 0
        }
        let right = columns.indices.map { isRightAligned($0, rows: rows) }
        if let maxWidth {
            let separator = style == .plain ? 2 : 3
            let frame = style == .plain ? 0 : 4
            let fitted = TerminalText.fit(
                widths, into: maxWidth - frame - separator * max(0, widths.count - 1), shrinkable: right.map { !$0 })
            if fitted != widths {
                widths = fitted
                header = header.indices.map { TerminalText.cut(header[$0], to: widths[$0]) }
                body = body.map { row in row.indices.map { TerminalText.cut(row[$0], to: widths[$0]) } }
            }
        }
        func line(_ cells: [String]) -> [String] {
            cells.indices.map { TerminalText.pad(cells[$0], to: widths[$0], right: right[$0]) }
        }

        var lines: [String] = []
        switch style {
        case .plain:
            lines.append(line(header).joined(separator: "  "))
            lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
            lines += body.map { line($0).joined(separator: "  ") }
            lines = lines.map { $0.trimmingTrailingSpaces() }
        case .unicode, .ascii:
            let box = style == .unicode ? BoxCharacters.unicode : BoxCharacters.ascii
            func rule(_ left: String, _ middle: String, _ right: String) -> String {
                left + widths.map { String(repeating: box.horizontal, count: $0 + 2) }.joined(separator: middle) + right
            }
            func row(_ cells: [String]) -> String {
                box.vertical + " " + line(cells).joined(separator: " \(box.vertical) ") + " " + box.vertical
            }
            lines.append(rule(box.topLeft, box.topJoin, box.topRight))
            lines.append(row(header))
            lines.append(rule(box.leftJoin, box.cross, box.rightJoin))
            lines += body.map(row)
            lines.append(rule(box.bottomLeft, box.bottomJoin, box.bottomRight))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

private struct BoxCharacters {
    let horizontal, vertical, topLeft, topJoin, topRight, leftJoin, cross, rightJoin, bottomLeft, bottomJoin,
        bottomRight: String

    static let unicode = BoxCharacters(
        horizontal: "─", vertical: "│", topLeft: "┌", topJoin: "┬", topRight: "┐", leftJoin: "├", cross: "┼",
        rightJoin: "┤",
        bottomLeft: "└", bottomJoin: "┴", bottomRight: "┘")
    static let ascii = BoxCharacters(
        horizontal: "-", vertical: "|", topLeft: "+", topJoin: "+", topRight: "+", leftJoin: "+", cross: "+",
        rightJoin: "+",
        bottomLeft: "+", bottomJoin: "+", bottomRight: "+")
}

/// Column widths as a terminal shows them.
enum TerminalText {
    /// Control characters (C0, DEL, C1) replaced by spaces.
    static func sanitize(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isControl($0) ? " " : $0 }))
    }

    /// Columns taken by `text`: one per character, two for East Asian wide characters and
    /// emoji (the common ranges; an approximation of `wcwidth`).
    static func width(_ text: String) -> Int {
        text.reduce(0) { total, character in total + (character.unicodeScalars.first.map(isWide) == true ? 2 : 1) }
    }

    /// Column widths whose sum is at most `total`, taking from the widest shrinkable column
    /// first and never below 8 (nor below a column's own width).
    static func fit(_ widths: [Int], into total: Int, shrinkable: [Bool]) -> [Int] {
        var widths = widths
        let floor = 8
        while widths.reduce(0, +) > total {
            guard
                let widest = widths.indices.filter({ shrinkable[$0] && widths[$0] > floor }).max(by: {
                    widths[$0] < widths[$1]
                })
            else { break }
            widths[widest] -= 1
        }
        return widths
    }

    /// `text` cut to `width` columns, ending in `…` when something was cut.
    static func cut(_ text: String, to width: Int) -> String {
        guard self.width(text) > width else { return text }
        var out = ""
        var used = 0
        for character in text {
            let w = self.width(String(character))
            if used + w > width - 1 { break }
            out.append(character)
            used += w
        }
        return out + "…"
    }

    /// `text` broken into lines of at most `width` columns at spaces (a longer word is cut).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
            if current.isEmpty {
                current = word
            } else if self.width(current) + 1 + self.width(word) <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = word
            }
            while self.width(current) > width {
                let head = cut(current, to: width)
                lines.append(head)
                current = String(current.dropFirst(head.count - 1))
            }
        }
        return lines + [current]
    }

    static func pad(_ text: String, to width: Int, right: Bool) -> String {
        let padding = String(repeating: " ", count: max(0, width - self.width(text)))
        return right ? padding + text : text + padding
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value)
    }

    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115f, 0x2e80...0x303e, 0x3041...0x33ff, 0x3400...0x4dbf, 0x4e00...0x9fff, 0xa000...0xa4cf,
            0xac00...0xd7a3, 0xf900...0xfaff, 0xfe30...0xfe4f, 0xff00...0xff60, 0xffe0...0xffe6,
            0x1f300...0x1f64f, 0x1f900...0x1f9ff, 0x20000...0x3fffd:
            return true
        default:
            return false
        }
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
