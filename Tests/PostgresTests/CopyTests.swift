import Foundation
import Postgres
import TestSupport
import Testing

@Suite struct CopyTests {
    let connection: Connection

    init() throws {
        connection = try Connection.connect(url: TestDatabase.empty(prefix: "copy"))
        try connection.execute(
            "create table items (id int8 primary key, label text, at timestamptz, ok bool, raw bytea)")
    }

    /// Values chosen to stress COPY escaping: every special byte, multi-byte UTF-8, and NULLs.
    private func label(_ i: Int) -> String? {
        switch i % 7 {
        case 0: nil
        case 1: "tab\there"
        case 2: "line\nbreak\r\nand\\backslash"
        case 3: "emoji 🚀 \u{1F9EA} ünï"
        case 4: "\\N"
        case 5: ""
        default: "plain \(i)"
        }
    }

    @Test func hundredThousandRowsRoundTripByteForByte() throws {
        let base = Date(timeIntervalSince1970: 1_796_000_000.25)
        let count = try connection.copyIn(table: "items", columns: ["id", "label", "at", "ok", "raw"]) { w in
            for i in 0..<100_000 {
                w.row([
                    i, label(i), base.addingTimeInterval(Double(i)), i % 2 == 0,
                    i % 5 == 0 ? nil : [UInt8(i % 256), 9, 10, 92],
                ])
            }
        }
        #expect(count == 100_000)
        let rows = try connection.query("select id, label, at, ok, raw from items order by id")
        #expect(rows.count == 100_000)
        var mismatches = 0
        for row in rows {
            let i: Int = try row.decode("id")
            if try row.decode("label", as: String?.self) != label(i) { mismatches += 1 }
            if try row.decode("ok", as: Bool.self) != (i % 2 == 0) { mismatches += 1 }
            let raw = try row.decode("raw", as: [UInt8]?.self)
            if raw != (i % 5 == 0 ? nil : [UInt8(i % 256), 9, 10, 92]) { mismatches += 1 }
            let at: Date = try row.decode("at")
            if abs(at.timeIntervalSince(base) - Double(i)) > 0.000_001 { mismatches += 1 }
        }
        #expect(mismatches == 0)
        let bytes: Int = try connection.query("select sum(octet_length(label))::int8 as b from items")[0].decode("b")
        let expected = (0..<100_000).compactMap(label).reduce(0) { $0 + $1.utf8.count }
        #expect(bytes == expected)
    }

    @Test func failingRowLeavesNothingAndSurfacesSQLState() throws {
        try connection.execute("create table nums (n int4 not null)")
        let error = #expect(throws: PostgresError.self) {
            try connection.copyIn(table: "nums", columns: ["n"]) { w in
                for i in 0..<1000 { w.row([i == 500 ? "not a number" : String(i)]) }
            }
        }
        #expect(error?.sqlState == "22P02")
        #expect(error?.code == .copy)
        #expect(try connection.query("select count(*) as c from nums")[0].decode("c", as: Int.self) == 0)
        // The connection is usable again.
        try connection.copyIn(table: "nums", columns: ["n"]) { $0.row([1]) }
        #expect(try connection.query("select count(*) as c from nums")[0].decode("c", as: Int.self) == 1)
    }

    @Test func callerErrorAbortsTheCopy() throws {
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try connection.copyIn(table: "items", columns: ["id"]) { w in
                w.row([1])
                throw Stop()
            }
        }
        #expect(try connection.query("select count(*) as c from items")[0].decode("c", as: Int.self) == 0)
    }

    @Test func unknownTableFails() {
        let error = #expect(throws: PostgresError.self) {
            try connection.copyIn(table: "no_such_table", columns: ["x"]) { $0.row([1]) }
        }
        #expect(error?.sqlState == "42P01")
    }

    @Test func escapingIsExact() {
        var out: [UInt8] = []
        CopyWriter.escape(Array("a\tb\nc\rd\\e".utf8), into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "a\\tb\\nc\\rd\\\\e")
        out.removeAll()
        CopyWriter.escape(Array("plain ünï".utf8), into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "plain ünï")
    }

    /// The text COPY rows and binds carry, byte for byte (the encoders write digits and hex
    /// themselves instead of going through String).
    @Test func valuesEncodeToPostgresText() {
        func text(_ value: any PostgresEncodable) -> String {
            var out: [UInt8] = []
            value.encodePostgresText(into: &out)
            return String(decoding: out, as: UTF8.self)
        }
        #expect(
            text(UUID(uuidString: "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9")!) == "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9")
        #expect(
            text(UUID(uuidString: "00000000-0000-0000-0000-000000000000")!) == "00000000-0000-0000-0000-000000000000")
        #expect(
            [0, 7, -7, 10, 1_000_000, Int.max, Int.min].map(text)
                == ["0", "7", "-7", "10", "1000000", "9223372036854775807", "-9223372036854775808"])
        #expect(text(Int16.min) == "-32768" && text(Int32.max) == "2147483647")
        #expect(text(Date(timeIntervalSince1970: 1_796_032_805.000042)) == "2026-11-30 10:00:05.000042+00")
        #expect(text(Date(timeIntervalSince1970: -62_135_596_800)) == "0001-01-01 00:00:00.000000+00")
    }
}
