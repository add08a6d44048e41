import Foundation
import Postgres
import TestSupport
import Testing

@Suite struct RecordArrayTests {
    let connection: Connection
    let item: RecordType

    init() throws {
        connection = try Connection.connect(url: TestDatabase.empty(prefix: "records"))
        try connection.execute(
            """
            create type item as (id int8, label text, at timestamptz, ok bool, raw bytea, small int2, medium int4,
                                 key uuid, ratio float8)
            """)
        item = try connection.recordType("item")
    }

    /// Times the binary form must carry to the microsecond, rounded as the text form rounds them:
    /// before and after PostgreSQL's epoch (2000), halves of a microsecond, and the infinities.
    private func at(_ i: Int) -> Date? {
        switch i % 13 {
        case 0: nil
        case 1: .distantFuture
        case 2: .distantPast
        case 3: Date(timeIntervalSince1970: 946_684_799.999_999_5 - Double(i))
        case 4: Date(timeIntervalSince1970: -1_000_000_000.000_000_5)
        default: Date(timeIntervalSince1970: 1_796_000_000.25 + Double(i) + 0.000_000_4)
        }
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
        var rows = RecordArray(of: item)
        for i in 0..<2_000 {
            rows.append([
                i, label(i), at(i), i % 2 == 0, i % 5 == 0 ? nil : [UInt8(i % 256), 34, 92, 44, 40],
                i % 7 == 0 ? nil : Int16(-i), i % 3 == 0 ? Int(Int32.max) : -i * 1000, UUID(),
                Double(i) / 7,
            ])
        }
        #expect(rows.count == 2_000 && rows.problem == nil)
        let read = try connection.query("select * from unnest(\(rows)::item[]) order by id")
        #expect(read.count == 2_000)
        var mismatches: [Int] = []
        for row in read {
            let i: Int = try row.decode("id")
            if try row.decode("label", as: String?.self) != label(i)
                || row.decode("ok", as: Bool.self) != (i % 2 == 0)
                || row.decode("raw", as: [UInt8]?.self) != (i % 5 == 0 ? nil : [UInt8(i % 256), 34, 92, 44, 40])
                || row.decode("small", as: Int?.self) != (i % 7 == 0 ? nil : -i)
                || row.decode("medium", as: Int.self) != (i % 3 == 0 ? Int(Int32.max) : -i * 1000)
                || row.decode("key", as: UUID?.self) == nil
                || row.decode("ratio", as: Double.self) != Double(i) / 7
            {
                mismatches.append(i)
            }
        }
        #expect(mismatches.isEmpty)
        // Each time equals the same time sent in text: the same instant to the microsecond.
        var times = RecordArray(of: item)
        for i in 0..<26 { times.append([i, nil, at(i), true, nil, nil, 0, nil, 0.0]) }
        for i in 0..<26 {
            let same = try connection.query(
                """
                select (select r.at from unnest(\(times)::item[]) r where r.id = \(i)) is not distinct from \(at(i)) \
                as same
                """)
            #expect(try same[0].decode("same", as: Bool.self), "time \(i): \(String(describing: at(i)))")
        }
    }

    @Test func noRowsIsAnEmptyArray() throws {
        let empty = try connection.query("select cardinality(\(RecordArray(of: item))::item[]) as n")
        #expect(try empty[0].decode("n", as: Int.self) == 0)
    }

    /// A field its attribute's type cannot hold, too many or too few fields: the statement
    /// refuses to run, naming the row and the field, and the connection goes on.
    @Test(
        arguments: [
            ([1, "fine", nil, true, nil, nil, "not a number", nil, nil], "item row 1: field 7"),
            ([1, "x", nil, true, nil, Int(Int16.max) + 1, 0, nil, nil], "item row 1: field 6"),
            ([1, "x", nil, "yes", nil, nil, 0, nil, nil], "item row 1: field 4"),
            ([1, "x", nil, true, nil, nil, 0, nil, 1.0, "extra"], "item row 1: more fields"),
            ([1, "x", nil, true], "item row 1: 4 fields of the type's 9"),
        ] as [([(any PostgresEncodable & Sendable)?], String)])
    func aRowTheTypeRefusesFailsTheStatement(fields: [(any PostgresEncodable & Sendable)?], problem: String) throws {
        var rows = RecordArray(of: item)
        rows.append(fields)
        rows.append([2, "fine", nil, true, nil, nil, 0, nil, nil])
        #expect(rows.problem?.hasPrefix(problem) == true, "\(rows.problem ?? "no problem")")
        let error = #expect(throws: PostgresError.self) {
            try connection.query("select * from unnest(\(rows)::item[])")
        }
        #expect(error?.code == .misuse && error?.message.contains(problem) == true)
        #expect(try connection.query("select 1 as one")[0].decode("one", as: Int.self) == 1)
    }

    /// A type looked up before it changed is refused by the server, which names the mismatch.
    @Test func aTypeChangedSinceItsLookupIsRefused() throws {
        #expect(throws: PostgresError.self) { try connection.recordType("no_such_type") }
        try connection.execute("create type pair as (a int4, b text)")
        let before = try connection.recordType("pair")
        #expect(before.attributes == [.int4, .text])
        try connection.execute("alter type pair add attribute c bool")
        var rows = RecordArray(of: before)
        rows.append([1, "x"])
        let error = #expect(throws: PostgresError.self) {
            try connection.query("select * from unnest(\(rows)::pair[])")
        }
        #expect(error?.sqlState == "42804")
        #expect(try connection.recordType("pair").attributes == [.int4, .text, .bool])
    }
}
