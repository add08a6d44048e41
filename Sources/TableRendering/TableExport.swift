import PushLedgerSupport

extension Table {
    /// RFC 4180 CSV: a header record, then one record per row, each ended by CRLF. Fields with
    /// a comma, quote, CR or LF are quoted, quotes doubled. Null cells are empty fields. A text
    /// cell starting with `=`, `+`, `-`, `@`, tab or CR gets a leading `'`: a spreadsheet would
    /// run it as a formula (a channel named `=HYPERLINK(…)`); numbers are left as they are.
    public func csv() -> String {
        let header = columns.map { Self.neutralized($0.title) }
        let records =
            [header]
            + normalizedRows.map { row in
                row.map { cell in
                    if case .text(let text) = cell { return Self.neutralized(text) }
                    return cell.text ?? ""
                }
            }
        return records.map { $0.map(Self.csvField).joined(separator: ",") + "\r\n" }.joined()
    }

    static func neutralized(_ text: String) -> String {
        guard let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return text }
        return "'" + text
    }

    /// A GitHub-flavoured Markdown table; numeric columns right-aligned (`---:`), null as `—`.
    public func markdown() -> String {
        let rows = normalizedRows
        let header = "| " + columns.map { Self.markdownCell($0.title) }.joined(separator: " | ") + " |"
        let rule =
            "|" + columns.indices.map { isRightAligned($0, rows: rows) ? " ---: " : " --- " }.joined(separator: "|")
            + "|"
        let body = rows.map { row in
            "| " + row.map { Self.markdownCell($0.text ?? "—") }.joined(separator: " | ") + " |"
        }
        return ([header, rule] + body).joined(separator: "\n") + "\n"
    }

    /// An array of objects keyed by column title, in column order; null cells are null.
    public func json() -> JSONValue {
        .array(
            normalizedRows.map { row in
                .object(JSONObject(zip(columns.map(\.title), row.map(\.jsonValue)).map { ($0, $1) }))
            })
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else {
            return text
        }
        return "\"" + text.replacingAll("\"", with: "\"\"") + "\""
    }

    /// Escapes what would end the cell (`|`, line breaks) or change how it renders
    /// (backslash, emphasis, code, links, HTML): all ASCII punctuation may be backslash-escaped.
    /// Other control characters become spaces.
    static func markdownCell(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "\\", "|", "*", "_", "`", "[", "]", "<", ">":
                out.append("\\")
                out.append(character)
            case "\r\n", "\n", "\r": out.append("<br>")
            default: out.append(contentsOf: TerminalText.sanitize(String(character)))
            }
        }
        return out
    }
}

extension String {
    /// Every occurrence of `target` replaced, without Foundation.
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        out.reserveCapacity(count)
        for character in self {
            if character == target { out += replacement } else { out.append(character) }
        }
        return out
    }
}
