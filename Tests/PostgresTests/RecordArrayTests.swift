import Foundation
import Postgres
import TestSupport
import Testing

@Suite struct RecordArrayTests {
    let connection: Connection

    init() throws {
        connection = try Connection.connect(url: TestDatabase.empty(prefix: "records"))
        try connection.execute("create type item as (id int8, label text, at timestamptz, ok bool, raw bytea)")
    }

    /// Text that needs quoting at either level: the record's and the array's delimiters,
    /// quotes, backslashes, whitespace, braces, multi-byte UTF-8, the empty string (not NULL)
    /// and text that spells NULL.
    private func label(_ i: Int) -> String? {
        switch i % 11 {
        case 0: nil
        case 1: "comma, and (parentheses)"
        case 2: "quote \" and \\backslash\\ and \\\""
        case 3: "{braces}, \"{\"}"
        case 4: "  leading and trailing spaces  "
        case 5: ""
        case 6: "NULL"
        case 7: "tab\tline\nbreak\r\n"
        case 8: "emoji 🚀 ünï"
        case 9: "\\N \\\\ \"\""
        default: "plain \(i)"
        }
    }

    @Test func rowsRoundTripThroughOneBind() throws {
        let base = Date(timeIntervalSince1970: 1_796_000_000.25)
        var rows = RecordArray()
        for i in 0..<2_000 {
            rows.append([
                i, label(i), i % 13 == 0 ? nil : base.addingTimeInterval(Double(i)), i % 2 == 0,
                i % 5 == 0 ? nil : [UInt8(i % 256), 34, 92, 44, 40],
            ])
        }
        #expect(rows.count == 2_000)
        let read = try connection.query("select * from unnest(\(rows)::item[]) order by id")
        #expect(read.count == 2_000)
        var mismatches: [Int] = []
        for row in read {
            let i: Int = try row.decode("id")
            let at = try row.decode("at", as: Date?.self)
            let expectedAt = i % 13 == 0 ? nil : base.addingTimeInterval(Double(i))
            if try row.decode("label", as: String?.self) != label(i)
                || row.decode("ok", as: Bool.self) != (i % 2 == 0)
                || row.decode("raw", as: [UInt8]?.self) != (i % 5 == 0 ? nil : [UInt8(i % 256), 34, 92, 44, 40])
                || (at == nil) != (expectedAt == nil)
                || abs((at ?? base).timeIntervalSince(expectedAt ?? base)) > 0.000_001
            {
                mismatches.append(i)
            }
        }
        #expect(mismatches.isEmpty)
    }

    @Test func noRowsIsAnEmptyArrayAndAFieldTheTypeRefusesFailsTheStatement() throws {
        let empty = try connection.query("select cardinality(\(RecordArray())::item[]) as n")
        #expect(try empty[0].decode("n", as: Int.self) == 0)
        var bad = RecordArray()
        bad.append([1, "fine", nil, true, nil])
        bad.append(["not a number", "x", nil, nil, nil])
        let error = #expect(throws: PostgresError.self) {
            try connection.query("select * from unnest(\(bad)::item[])")
        }
        #expect(error?.sqlState == "22P02")
        // Too many fields for the type.
        var long = RecordArray()
        long.append([1, "x", nil, true, nil, "extra"])
        #expect(throws: PostgresError.self) { try connection.query("select * from unnest(\(long)::item[])") }
    }
}
