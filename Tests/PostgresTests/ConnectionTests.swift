import Foundation
import Postgres
import TestSupport
import Testing

@Suite struct ConnectionTests {
    let connection: Connection

    init() throws {
        connection = try Connection.connect(url: TestDatabase.empty(prefix: "pg"))
    }

    private func roundTrip<T: PostgresEncodable & PostgresDecodable & Equatable>(
        _ value: T, as cast: String
    ) throws -> T {
        try connection.query("select \(value)::\(unsafeRaw: cast) as v")[0].decode("v", as: T.self)
    }

    @Test func integersIncludingExtremes() throws {
        for v in [0, 1, -1, Int.max, Int.min] { #expect(try roundTrip(v, as: "int8") == v) }
        for v in [Int64.max, Int64.min] { #expect(try roundTrip(v, as: "int8") == v) }
        for v in [Int32.max, Int32.min] { #expect(try roundTrip(v, as: "int4") == v) }
        for v in [Int16.max, Int16.min] { #expect(try roundTrip(v, as: "int2") == v) }
    }

    @Test func doublesIncludingSpecialValues() throws {
        for v in [0.0, -0.5, 1e-300, 1.7976931348623157e308, .pi, .infinity, -.infinity] {
            #expect(try roundTrip(v, as: "float8") == v)
        }
        #expect(try roundTrip(Double.nan, as: "float8").isNaN)
    }

    @Test func textWithUnicodeAndControlCharacters() throws {
        for v in [
            "", "plain", "ünïcödé 🚀📬", "tab\tnewline\nreturn\r\\back'quote\"", String(repeating: "x", count: 100_000),
        ] {
            #expect(try roundTrip(v, as: "text") == v)
        }
    }

    @Test func boolsUUIDsAndBytes() throws {
        #expect(try roundTrip(true, as: "bool") == true)
        #expect(try roundTrip(false, as: "bool") == false)
        let id = UUID()
        #expect(try roundTrip(id, as: "uuid") == id)
        let bytes: [UInt8] = [0, 1, 0x7f, 0x80, 0xff, 92, 10]
        #expect(try roundTrip(bytes, as: "bytea") == bytes)
        #expect(try roundTrip([UInt8](), as: "bytea") == [])
    }

    @Test func timestampsKeepMicroseconds() throws {
        let dates = [
            Date(timeIntervalSince1970: 1_796_032_805.123456),
            Date(timeIntervalSince1970: 0),
            Date(timeIntervalSince1970: -86_400 * 365.25 * 100 + 0.000001),
            Date(timeIntervalSince1970: 253_402_300_799.999999),  // 9999-12-31 23:59:59.999999
        ]
        for date in dates {
            let back = try roundTrip(date, as: "timestamptz")
            #expect(abs(back.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.000_000_6)
        }
        let text: String = try connection.query("select \(dates[0])::text as t")[0].decode("t")
        #expect(text == "2026-11-30 10:00:05.123456+00")  // python: datetime.fromtimestamp(…, utc)
        #expect(try roundTrip(Date.distantFuture, as: "timestamptz") == .distantFuture)
    }

    @Test func nullsDecodeAsOptionalsAndFailOtherwise() throws {
        let missing: String? = nil
        let row = try connection.query("select \(missing) as a, 5::int8 as b")[0]
        #expect(try row.decode("a", as: String?.self) == nil)
        #expect(try row.decode("b", as: Int?.self) == 5)
        let error = #expect(throws: PostgresError.self) { try row.decode("a", as: String.self) }
        #expect(error?.code == .decoding)
        #expect(error?.message.contains("\"a\"") == true)
    }

    @Test func decodingErrorNamesTheColumn() throws {
        let row = try connection.query("select 'abc'::text as amount")[0]
        let error = #expect(throws: PostgresError.self) { try row.decode("amount", as: Int.self) }
        #expect(error?.message == "column \"amount\": cannot read 'abc' as Int")
        #expect(throws: PostgresError.self) { try row.decode("nope", as: Int.self) }
        #expect(throws: PostgresError.self) { try row.decode(7, as: Int.self) }
    }

    @Test func interpolatedValuesAreBindsNotText() throws {
        let hostile = "x'); drop table victims; --"
        try connection.execute("create table victims (name text)")
        try connection.execute("insert into victims values (\(hostile))")
        let stored: String = try connection.query("select name from victims")[0].decode("name")
        #expect(stored == hostile)
        let statement: SQL = "select \(1) + \(2) as s where \(hostile) is not null"
        #expect(statement.text == "select $1 + $2 as s where $3 is not null")
    }

    @Test func fragmentsRenumberTheirBinds() throws {
        let filter: SQL = "n > \(2) and n < \(5)"
        let sql: SQL = "select count(*) as c from generate_series(\(1), \(10)) n where \(filter)"
        #expect(sql.text == "select count(*) as c from generate_series($1, $2) n where n > $3 and n < $4")
        #expect(try connection.query(sql)[0].decode("c", as: Int.self) == 2)
    }

    @Test func transactionCommitsOnReturnAndRollsBackOnThrow() throws {
        struct Boom: Error {}
        try connection.execute("create table t (v int)")
        try connection.transaction { try $0.execute("insert into t values (1)") }
        #expect(throws: Boom.self) {
            try connection.transaction { c in
                try c.execute("insert into t values (2)")
                throw Boom()
            }
        }
        #expect(try connection.query("select count(*) as c from t")[0].decode("c", as: Int.self) == 1)
        #expect(throws: PostgresError.self) { try connection.transaction { c in try c.transaction { _ in } } }
        #expect(try connection.execute("update t set v = 3") == 1)
    }

    @Test func uniqueViolationCarriesSQLStateAndConstraint() throws {
        try connection.execute("create table u (id int constraint u_pk primary key)")
        try connection.execute("insert into u values (1)")
        let error = #expect(throws: PostgresError.self) { try connection.execute("insert into u values (1)") }
        #expect(error?.sqlState == "23505")
        #expect(error?.constraint == "u_pk")
        #expect(error?.table == "u")
        #expect(error?.detail?.contains("(id)=(1)") == true)
        #expect(error?.isConnectionProblem == false)
        #expect(error?.description == "database error 23505: duplicate key value violates unique constraint \"u_pk\"")
        #expect(error?.debugDescription.contains("query: insert into u values (1)") == true)
        // The connection is still usable after an error.
        #expect(try connection.query("select 1 as one")[0].decode("one", as: Int.self) == 1)
    }

    @Test func refusedConnectionIsOneClearLine() throws {
        let error = #expect(throws: PostgresError.self) {
            try Connection.connect(url: "postgres://nobody@127.0.0.1:1/none?connect_timeout=2")
        }
        #expect(error?.code == .connectionFailed)
        #expect(error?.isConnectionProblem == true)
        let message = error?.description ?? ""
        #expect(message.hasPrefix("cannot connect to PostgreSQL at 127.0.0.1:1: "))
        #expect(message.contains("refused"))
        #expect(!message.contains("\n"))
    }

    @Test func unixSocketURLsWork() throws {
        let admin = try TestDatabase.adminURL
        let socketDir: String = try Connection.connect(url: admin)
            .query("select current_setting('unix_socket_directories') as d")[0].decode("d")
        let port = URLComponents(string: admin)!.port!
        let viaSocket = try Connection.connect(url: "postgres://pushledger@/pushledger?host=\(socketDir)&port=\(port)")
        #expect(try viaSocket.query("select 1 as one")[0].decode("one", as: Int.self) == 1)
    }

    @Test func scriptsRunSeveralStatements() throws {
        try connection.executeScript("create table s (v int); insert into s values (1), (2);")
        #expect(try connection.query("select sum(v)::int8 as s from s")[0].decode("s", as: Int.self) == 3)
        #expect(throws: PostgresError.self) { try connection.executeScript("select from nowhere") }
    }
}
