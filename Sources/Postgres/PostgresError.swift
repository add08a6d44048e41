import PushLedgerSupport

/// Every failure of the Postgres client. `description` is terse and safe to show a user;
/// `debugDescription` adds the server's detail, hint and the query for logs.
public struct PostgresError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What kind of failure; an extensible set of static values rather than a closed enum.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The connection could not be opened.
        public static let connectionFailed = Code("connection_failed")
        /// An open connection broke (server gone, network cut).
        public static let connectionLost = Code("connection_lost")
        /// The server answered with an error (see `sqlState`).
        public static let server = Code("server")
        /// A value could not be decoded into the requested Swift type.
        public static let decoding = Code("decoding")
        /// COPY failed or was aborted.
        public static let copy = Code("copy")
        /// The client was used wrongly (e.g. nested transactions).
        public static let misuse = Code("misuse")
        /// The connection broke after COMMIT was sent and before its answer came: the
        /// transaction may have committed or not (on the old primary, or on a standby that
        /// received its WAL and was promoted). Only a read can tell.
        public static let commitUnknown = Code("commit_unknown")
    }

    public var code: Code
    /// Five-character SQLSTATE from the server, e.g. `23505` for a unique violation.
    public var sqlState: String?
    public var message: String
    public var detail: String?
    public var hint: String?
    public var constraint: String?
    public var table: String?
    /// The statement text (never the bound values), for logs only.
    public var query: String?

    public init(
        code: Code, message: String, sqlState: String? = nil, detail: String? = nil, hint: String? = nil,
        constraint: String? = nil, table: String? = nil, query: String? = nil
    ) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
        self.detail = detail
        self.hint = hint
        self.constraint = constraint
        self.table = table
        self.query = query
    }

    /// True when the server is unreachable, the connection broke, or the server is no longer
    /// the primary: the work may be retried on a new connection. Nothing of an open transaction
    /// was committed unless `isOutcomeUnknown` (the break came during COMMIT).
    public var isConnectionProblem: Bool {
        if code == .connectionFailed || code == .connectionLost || code == .commitUnknown { return true }
        guard let sqlState else { return false }
        // Class 08: connection exception; 57P01-03: admin/crash shutdown, cannot connect now;
        // 25006: a read-only transaction, i.e. this server was demoted to a standby under us
        // (a switchover): a new connection finds the new primary.
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03", "25006"].contains(sqlState)
    }

    /// True when a transaction may or may not have committed: the connection broke during its
    /// COMMIT. Saying "nothing was stored" would then be a guess; a retry that de-duplicates is safe.
    public var isOutcomeUnknown: Bool { code == .commitUnknown }

    public var description: String {
        if let sqlState { return "database error \(sqlState): \(message)" }
        return message
    }

    public var debugDescription: String {
        var parts = [description]
        if let detail { parts.append("detail: \(detail)") }
        if let hint { parts.append("hint: \(hint)") }
        if let constraint { parts.append("constraint: \(constraint)") }
        if let table { parts.append("table: \(table)") }
        if let query { parts.append("query: \(query)") }
        return parts.joined(separator: "; ")
    }
}

extension PostgresError: ExitCoded {
    /// A connection problem leaves the work to run again later (a failover, a restart); any
    /// other database error is the command's failure.
    public var exitCode: ExitCode { isConnectionProblem ? .unavailable : .failure }
}
