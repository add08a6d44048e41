import CLibPQ
import Foundation

/// One PostgreSQL connection on libpq.
///
/// Thread rule: libpq allows one thread at a time per connection, so `Connection` is not
/// `Sendable` — strict concurrency stops it from crossing threads. Workers borrow one from a
/// `ConnectionPool` for the duration of a closure.
public final class Connection {
    let handle: OpaquePointer
    private var inTransaction = false

    private init(handle: OpaquePointer) { self.handle = handle }

    deinit { PQfinish(handle) }

    /// Connects from a `postgres://` URL (unix-socket hosts via `?host=/path`), a libpq
    /// `key=value` string, or "" for the standard `PG*` environment variables.
    /// A failure names host and port and gives libpq's reason on one line.
    public static func connect(url: String, connectTimeoutSeconds: Int = 10) throws(PostgresError) -> Connection {
        // Later keywords win, so the URL can still override the timeout and application name.
        let keywords = ["connect_timeout", "fallback_application_name", "dbname"]
        let values = [String(connectTimeoutSeconds), "pushledger", url]
        let handle = withCStrings(keywords) { k in withCStrings(values) { v in PQconnectdbParams(k, v, 1) } }
        guard let handle else {
            throw PostgresError(code: .connectionFailed, message: "could not allocate a connection")
        }
        let connection = Connection(handle: handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            let host = PQhost(handle).map { String(cString: $0) } ?? "?"
            let port = PQport(handle).map { String(cString: $0) } ?? "?"
            let reason = oneLine(PQerrorMessage(handle).map { String(cString: $0) } ?? "unknown error")
            throw PostgresError(
                code: .connectionFailed, message: "cannot connect to PostgreSQL at \(host):\(port): \(reason)")
        }
        try connection.executeScript(
            """
            SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'iso_8601'; SET \
            client_min_messages = warning
            """
        )
        return connection
    }

    /// True while libpq considers the connection usable.
    public var isHealthy: Bool { PQstatus(handle) == CONNECTION_OK }

    /// The server's process id for this session (for diagnostics and tests).
    public var backendPID: Int { Int(PQbackendPID(handle)) }

    /// Runs a statement and returns its rows.
    @discardableResult
    public func query(_ sql: SQL) throws(PostgresError) -> QueryResult {
        let text = sql.text
        let result = try run(text: text, binds: sql.binds)
        return QueryResult(handle: result, query: text)
    }

    /// Runs one statement as a transaction of its own (the connection must not be in one): it
    /// commits as it ends, in one round trip. A connection that breaks while it runs throws
    /// `.commitUnknown` (`isOutcomeUnknown`), since it may have committed; a server error means
    /// it rolled back, and a connection already broken sent nothing.
    public func queryCommitting(_ sql: SQL) throws(PostgresError) -> QueryResult {
        guard !inTransaction else {
            throw PostgresError(code: .misuse, message: "a statement that commits itself ran inside a transaction")
        }
        guard isHealthy else { throw lostError(query: sql.text) }
        do {
            return try query(sql)
        } catch  where error.isConnectionProblem {
            throw PostgresError(
                code: .commitUnknown, message: "\(error.message); the statement may or may not have committed",
                sqlState: error.sqlState, detail: error.detail, query: error.query)
        }
    }

    /// Runs a statement and returns the number of rows it affected.
    @discardableResult
    public func execute(_ sql: SQL) throws(PostgresError) -> Int {
        let text = sql.text
        let result = try run(text: text, binds: sql.binds)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Runs a script of several statements without binds (a file from sql/).
    public func executeScript(_ script: String) throws(PostgresError) {
        guard let result = PQexec(handle, script) else { throw lostError(query: nil) }
        defer { PQclear(result) }
        try check(result, query: nil)
    }

    /// Runs `body` in a transaction: commit when it returns, rollback when it throws.
    ///
    /// The COMMIT runs without a statement timeout (whatever the role or database sets): under
    /// synchronous replication it waits for the standby, and a timeout there does not undo it —
    /// the server commits locally, only warns, and COMMIT succeeds, so the caller would
    /// acknowledge a transaction that is on one machine only.
    /// A connection that breaks during COMMIT throws `.commitUnknown` (`isOutcomeUnknown`);
    /// one that breaks before it throws a connection error and nothing was committed.
    @discardableResult
    public func transaction<T>(_ body: (Connection) throws -> T) throws -> T {
        guard !inTransaction else {
            throw PostgresError(code: .misuse, message: "nested transactions are not supported")
        }
        try executeScript("BEGIN")
        inTransaction = true
        defer { inTransaction = false }
        let value: T
        do {
            value = try body(self)
        } catch {
            if isHealthy { try? executeScript("ROLLBACK") }
            throw error
        }
        try executeScript("SET LOCAL statement_timeout = 0")
        try commit()
        return value
    }

    /// COMMIT of the open transaction. A server error (a deferred constraint, a serialization
    /// failure) means it rolled back; a broken connection means nobody here knows.
    private func commit() throws(PostgresError) {
        do {
            try executeScript("COMMIT")
        } catch  where error.isConnectionProblem {
            throw PostgresError(
                code: .commitUnknown, message: "\(error.message); the transaction may or may not have committed",
                sqlState: error.sqlState, detail: error.detail, query: "COMMIT")
        }
    }

    private func run(text: String, binds: [SQL.Bind]) throws(PostgresError) -> OpaquePointer {
        if let problem = binds.lazy.compactMap(\.problem).first {
            throw PostgresError(code: .misuse, message: "a value could not be encoded: \(problem)", query: text)
        }
        // All parameter bytes live in one buffer for the whole PQexecParams call.
        var storage: [UInt8] = []
        storage.reserveCapacity(binds.reduce(0) { $0 + ($1.text?.count ?? 0) + 1 })
        var offsets: [Int?] = []
        for bind in binds {
            guard let bytes = bind.text else {
                offsets.append(nil)
                continue
            }
            offsets.append(storage.count)
            storage.append(contentsOf: bytes)
            storage.append(0)
        }
        let types = binds.map { Oid($0.type.rawValue) }
        // Text values end in their NUL; a binary value's length is what libpq reads.
        let lengths = binds.map { Int32($0.text?.count ?? 0) }
        let formats = binds.map { Int32($0.binary ? 1 : 0) }
        let result: OpaquePointer? = storage.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { buffer in
                let values: [UnsafePointer<CChar>?] = offsets.map { $0.map { buffer.baseAddress! + $0 } }
                return PQexecParams(handle, text, Int32(binds.count), types, values, lengths, formats, 0)
            }
        }
        guard let result else { throw lostError(query: text) }
        do {
            try check(result, query: text)
        } catch {
            PQclear(result)
            throw error
        }
        return result
    }

    func check(_ result: OpaquePointer, query: String?) throws(PostgresError) {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY, PGRES_COPY_IN, PGRES_COPY_OUT:
            return
        default:
            throw serverError(result, query: query)
        }
    }

    func serverError(_ result: OpaquePointer, query: String?, code: PostgresError.Code = .server) -> PostgresError {
        func field(_ c: Character) -> String? {
            PQresultErrorField(result, Int32(c.asciiValue!)).map { String(cString: $0) }
        }
        guard let sqlState = field("C") else { return lostError(query: query) }
        return PostgresError(
            code: code, message: field("M") ?? "unknown error", sqlState: sqlState, detail: field("D"),
            hint: field("H"), constraint: field("n"), table: field("t"), query: query)
    }

    func lostError(query: String?) -> PostgresError {
        let reason = oneLine(PQerrorMessage(handle).map { String(cString: $0) } ?? "")
        return PostgresError(
            code: isHealthy ? .server : .connectionLost,
            message: reason.isEmpty ? "connection to PostgreSQL lost" : "connection to PostgreSQL lost: \(reason)",
            query: query)
    }
}

/// libpq's messages span lines; logs and users want one.
func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }.joined(separator: " ")
}

private func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return body(copies.map { UnsafePointer($0) } + [nil])
}
