import CLibPQ

/// Rows of one statement's result, in text format. Owns the libpq result.
public final class QueryResult: RandomAccessCollection {
    let handle: OpaquePointer
    /// Column names in order.
    public let columns: [String]
    private let query: String

    init(handle: OpaquePointer, query: String) {
        self.handle = handle
        self.query = query
        columns = (0..<PQnfields(handle)).map { String(cString: PQfname(handle, $0)) }
    }

    deinit { PQclear(handle) }

    public var startIndex: Int { 0 }
    public var endIndex: Int { Int(PQntuples(handle)) }
    public subscript(position: Int) -> Row { Row(result: self, index: Int32(position)) }

    func columnIndex(_ name: String) throws(PostgresError) -> Int32 {
        let index = PQfnumber(handle, SQL.quoteIdentifier(name))
        guard index >= 0 else {
            throw PostgresError(code: .decoding, message: "no column \"\(name)\" in result", query: query)
        }
        return index
    }

    func decode<T: PostgresDecodable>(row: Int32, column: Int32, as type: T.Type) throws(PostgresError) -> T {
        let name = columns[Int(column)]
        if PQgetisnull(handle, row, column) == 1 {
            guard let null = T.postgresNull else {
                throw PostgresError(
                    code: .decoding, message: "column \"\(name)\" is NULL, expected \(T.self)", query: query)
            }
            return null
        }
        let length = Int(PQgetlength(handle, row, column))
        let value = PQgetvalue(handle, row, column)!
        let decoded = value.withMemoryRebound(to: UInt8.self, capacity: length) { pointer in
            T.decodePostgresText(UnsafeBufferPointer(start: pointer, count: length))
        }
        guard let decoded else {
            let shown = String(
                decoding: UnsafeRawBufferPointer(start: value, count: Swift.min(length, 64)), as: UTF8.self)
            throw PostgresError(
                code: .decoding, message: "column \"\(name)\": cannot read '\(shown)' as \(T.self)", query: query)
        }
        return decoded
    }
}

/// One result row; decode columns by name or position.
public struct Row {
    let result: QueryResult
    let index: Int32

    /// Decodes a column by name; ask for an Optional type where the column may be NULL.
    public func decode<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws(PostgresError) -> T {
        try result.decode(row: index, column: result.columnIndex(column), as: type)
    }

    /// Decodes a column by position (0-based).
    public func decode<T: PostgresDecodable>(_ column: Int, as type: T.Type = T.self) throws(PostgresError) -> T {
        guard column >= 0, column < result.columns.count else {
            throw PostgresError(code: .decoding, message: "no column at position \(column) in result")
        }
        return try result.decode(row: index, column: Int32(column), as: type)
    }
}
