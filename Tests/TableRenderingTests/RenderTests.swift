import Testing

@testable import PushLedgerRules
@testable import TableRendering

private let channels = Table(
    headers: ["channel", "sends", "silent loss", "change"],
    rows: [
        ["promo", 1_200, .percent(0.0512, digits: 1), .points(0.015, digits: 1)],
        ["alerts", 35, .rate(Rate(0, of: 0)), .points(-0.002, digits: 1)],
    ])

@Suite("Report rendering")
struct RenderTests {
    @Test(arguments: [
        (0.0, 1, "0.0"), (1.25, 1, "1.3"), (-1.25, 1, "-1.3"), (-0.04, 1, "0.0"), (2.0, 0, "2"), (0.5, 0, "1"),
        (123.456, 2, "123.46"), (0.001, 3, "0.001"), (-0.0, 2, "0.00"), (1e20, 1, "1e+20"), (.nan, 1, "NaN"),
        (.infinity, 1, "Inf"), (-.infinity, 1, "-Inf"),
    ])
    func fixed(value: Double, digits: Int, text: String) {
        #expect(Format.fixed(value, digits: digits) == text)
    }

    @Test func percentagesAndPoints() {
        #expect(Format.percent(0.1234) == "12.3%")
        #expect(Format.percent(1) == "100.0%")
        #expect(Format.percent(0.123456, digits: 2) == "12.35%")
        #expect(Format.percent(-0.0001) == "0.0%")
        #expect(Format.points(0.015) == "+1.5 pp")
        #expect(Format.points(-0.002) == "-0.2 pp")
        #expect(Format.points(0.0001) == "0.0 pp")
        #expect(Format.points(0) == "0.0 pp")
        #expect(Format.relativeChange(from: 200, to: 250) == "+25.0%")
        #expect(Format.relativeChange(from: 200, to: 150) == "-25.0%")
        #expect(Format.relativeChange(from: 3, to: 3) == "0.0%")
        #expect(Format.relativeChange(from: 0, to: 3) == nil)
        #expect(Cell.rate(Rate(1, of: 8), digits: 2) == .percent(0.125, digits: 2))
        #expect(Cell.rate(Rate(0, of: 0)) == .null)
    }

    @Test func unicodeTable() {
        #expect(
            channels.terminal() == """
                ┌─────────┬───────┬─────────────┬─────────┐
                │ channel │ sends │ silent loss │  change │
                ├─────────┼───────┼─────────────┼─────────┤
                │ promo   │  1200 │        5.1% │ +1.5 pp │
                │ alerts  │    35 │           — │ -0.2 pp │
                └─────────┴───────┴─────────────┴─────────┘

                """)
    }

    @Test func asciiTable() {
        #expect(
            channels.terminal(style: .ascii) == """
                +---------+-------+-------------+---------+
                | channel | sends | silent loss |  change |
                +---------+-------+-------------+---------+
                | promo   |  1200 |        5.1% | +1.5 pp |
                | alerts  |    35 |           - | -0.2 pp |
                +---------+-------+-------------+---------+

                """)
    }

    @Test func plainTable() {
        #expect(
            channels.terminal(style: .plain) == """
                channel  sends  silent loss   change
                -------  -----  -----------  -------
                promo     1200         5.1%  +1.5 pp
                alerts      35            -  -0.2 pp

                """)
    }

    @Test func alignmentRules() {
        let table = Table(
            columns: [
                Table.Column("id", alignment: .left), Table.Column("note", alignment: .right), Table.Column("mixed"),
            ],
            rows: [[1, "a", 2], [22, "bb", "x"], [.null]])
        #expect(
            table.terminal(style: .plain) == """
                id  note  mixed
                --  ----  -----
                1      a  2
                22    bb  x
                -      -  -

                """)
        // A column of nulls only has nothing to align by: left.
        #expect(!Table(headers: ["x"], rows: [[.null]]).isRightAligned(0, rows: [[.null]]))
    }

    @Test func wideCharactersAndControlCharacters() {
        let table = Table(
            headers: ["campaign", "n"], rows: [["新年セール", 3], ["evil\u{1B}[31mred\ttab\nline", 4], ["café", 5]])
        #expect(
            table.terminal(style: .ascii) == """
                +-----------------------+---+
                | campaign              | n |
                +-----------------------+---+
                | 新年セール            | 3 |
                | evil [31mred tab line | 4 |
                | café                  | 5 |
                +-----------------------+---+

                """)
        #expect(TerminalText.width("e\u{301}") == 1)  // a combining accent adds no column
        #expect(TerminalText.width("🙂x") == 3)
    }

    @Test func rowsArePaddedOrCut() {
        let table = Table(headers: ["a", "b"], rows: [["x"], ["1", "2", "3"]])
        #expect(table.csv() == "a,b\r\nx,\r\n1,2\r\n")
    }

    @Test func csvNeutralisesFormulasInTextButNotNumbers() {
        let table = Table(
            headers: ["=title", "value"],
            rows: [
                ["=HYPERLINK(\"http://x\")", -5], ["+1", .number(-0.5, digits: 1)], ["-2", 0], ["@SUM(A1)", 1],
                ["\tx", 2], ["a=b", 3],
            ])
        let records = [
            "'=title,value", "\"'=HYPERLINK(\"\"http://x\"\")\",-5", "'+1,-0.5", "'-2,0", "'@SUM(A1),1", "'\tx,2",
            "a=b,3",
        ]
        #expect(table.csv() == records.map { $0 + "\r\n" }.joined())
    }

    @Test func csvQuoting() {
        let table = Table(
            headers: ["name", "value"],
            rows: [
                ["plain", 1], ["with,comma", 2], ["with \"quote\"", 3], ["two\nlines", 4], ["cr\r\nlf", 5],
                [" spaced ", .null], ["", .number(0.5, digits: 2)],
            ])
        let records = [
            "name,value", "plain,1", "\"with,comma\",2", "\"with \"\"quote\"\"\",3", "\"two\nlines\",4",
            "\"cr\r\nlf\",5", " spaced ,", ",0.50",
        ]
        #expect(table.csv() == records.map { $0 + "\r\n" }.joined())
        #expect(Table(headers: ["a,b"]).csv() == "\"a,b\"\r\n")
    }

    @Test func markdown() {
        #expect(
            channels.markdown() == """
                | channel | sends | silent loss | change |
                | --- | ---: | ---: | ---: |
                | promo | 1200 | 5.1% | +1.5 pp |
                | alerts | 35 | — | -0.2 pp |

                """)
    }

    @Test func markdownEscaping() {
        #expect(Table.markdownCell("a|b") == #"a\|b"#)
        #expect(Table.markdownCell(#"back\slash|pipe"#) == #"back\\slash\|pipe"#)
        #expect(
            Table.markdownCell("spring_sale *now* `x` [link](u) <b>")
                == #"spring\_sale \*now\* \`x\` \[link\](u) \<b\>"#)
        #expect(Table.markdownCell("one\ntwo\r\nthree") == "one<br>two<br>three")
        #expect(Table.markdownCell("tab\there\u{1B}") == "tab here ")
        let table = Table(headers: ["a|b"], rows: [["x|y"]])
        #expect(table.markdown() == "| a\\|b |\n| --- |\n| x\\|y |\n")
    }

    @Test func emptyTable() {
        let table = Table(headers: ["a", "bb"])
        #expect(table.terminal(style: .ascii) == "+---+----+\n| a | bb |\n+---+----+\n+---+----+\n")
        #expect(table.markdown() == "| a | bb |\n| --- | --- |\n")
    }
}
