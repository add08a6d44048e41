import Testing

@testable import TableRendering

/// A 12-column table with long cells, far wider than a terminal.
private let wide = ReportTable(
    title: "Silent loss", columns: ["channel", "sends", "note"] + (1...9).map { "rate_\($0)" },
    rows: [
        [.text("promotions"), .integer(120_000), .text(String(repeating: "a long campaign name ", count: 6))]
            + (1...9).map { _ in .percent(0.123, digits: 1) }
    ],
    notes: [String(repeating: "a note that goes on ", count: 12)],
    key: ["channel", "sends", "note", "rate_1"])

private func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }
private func widest(_ text: String) -> Int { lines(text).map { TerminalText.width($0) }.max() ?? 0 }

@Suite("Column choice and terminal width")
struct ColumnTests {
    @Test func theDefaultShowsKeyColumnsWithinTheTerminalWidth() {
        let text = wide.rendered(.table)
        #expect(widest(text) <= Table.terminalWidth, "\(text)")
        #expect(
            lines(text)[2].contains("channel") && lines(text)[2].contains("rate_1")
                && !lines(text)[2].contains("rate_2"))
        #expect(text.contains("…"), "the long note cell is cut")
        #expect(text.contains("more columns (--wide, or --columns by name): rate_2, rate_3"))
        let plain = wide.rendered(.text)
        #expect(widest(plain) <= Table.terminalWidth, "\(plain)")
    }

    @Test func wideShowsEveryColumnUncut() {
        let text = wide.rendered(.table, columns: .all)
        #expect(widest(text) > Table.terminalWidth)
        #expect(text.contains("rate_9") && text.contains(String(repeating: "a long campaign name ", count: 5)))
        #expect(!text.contains("more columns"))
    }

    @Test func columnsPicksInTheOrderGiven() throws {
        let text = wide.rendered(
            .text, columns: try ColumnChoice.named(["rate_9", "channel"]).checked(against: [wide.table]))
        let header = lines(text)[1]
        #expect(header.hasPrefix("rate_9") && header.contains("channel") && !header.contains("sends"), "\(header)")
        #expect(text.contains("more columns (--wide, or --columns by name): sends, note, rate_1"))
    }

    @Test func anUnknownColumnNamesTheColumnsThereAre() {
        #expect(
            throws: UnknownColumnError(
                reason: "unknown column 'nope' (columns: channel, sends, note, "
                    + (1...9).map { "rate_\($0)" }.joined(separator: ", ") + ")")
        ) {
            try ColumnChoice.named(["nope"]).checked(against: [wide.table])
        }
    }

    @Test func machineFormatsKeepEveryField() {
        #expect(
            wide.rendered(.csv).hasPrefix(
                "channel,sends,note,rate_1,rate_2,rate_3,rate_4,rate_5,rate_6,rate_7,rate_8,rate_9\r\n"))
        #expect(wide.rendered(.markdown).contains("| rate\\_9 |"))
        let json = wide.rendered(.json)
        #expect(json.contains("\"rate_9\" : 0.123") || json.contains("\"rate_9\": 0.123"), "\(json)")
        #expect(json.contains("\"sends\": 120000") || json.contains("\"sends\" : 120000"), "\(json)")
    }

    @Test func fittingTakesFromTheWidestTextColumnAndKeepsNumbers() {
        #expect(TerminalText.fit([10, 50, 30], into: 60, shrinkable: [true, true, false]) == [10, 20, 30])
        #expect(TerminalText.fit([10, 50], into: 10, shrinkable: [true, true]) == [8, 8])
        #expect(TerminalText.cut("promotions", to: 6) == "promo…")
        #expect(TerminalText.cut("orders", to: 6) == "orders")
        #expect(TerminalText.wrap("one two three four", width: 9) == ["one two", "three", "four"])
    }
}

@Suite("Wrapping sentences for a terminal")
struct WrapTests {
    @Test func longSentencesGoOnOverIndentedLines() {
        let sentence = (1...40).map { "word\($0)" }.joined(separator: " ")
        let wrapped = Table.wrap(sentence, width: 50)
        let lines = wrapped.split(separator: "\n")
        #expect(lines.count > 3 && lines.allSatisfy { $0.count <= 50 })
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("    word") })
        #expect(wrapped.replacingOccurrences(of: "\n    ", with: " ") == sentence)
        #expect(Table.wrap("short", width: 50) == "short")
    }
}
