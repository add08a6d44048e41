import Foundation
import Postgres
import Store
import Synchronization

/// Throwaway databases on the cluster that `make test` starts (`PUSHLEDGER_TEST_DATABASE_URL`,
/// else `DATABASE_URL`). Each test suite takes its own, so suites run in parallel safely.
public enum TestDatabase {
    /// Repository root, found from this file's location.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `sql/` folder the migrator reads.
    public static var sqlDirectory: URL { repositoryRoot.appendingPathComponent("sql") }

    /// The cluster's admin URL.
    public static var adminURL: String {
        get throws {
            let env = ProcessInfo.processInfo.environment
            guard let url = env["PUSHLEDGER_TEST_DATABASE_URL"] ?? env["DATABASE_URL"], !url.isEmpty else {
                throw PostgresError(
                    code: .misuse, message: "set PUSHLEDGER_TEST_DATABASE_URL (make test does) to run database tests")
            }
            return url
        }
    }

    /// The admin URL with its database name replaced.
    public static func url(database: String) throws -> String {
        var parts = URLComponents(string: try adminURL)!
        parts.path = "/" + database
        return parts.string!
    }

    private static let templateName = Mutex<String?>(nil)

    /// A new, empty database; returns its URL.
    public static func empty(prefix: String = "t") throws -> String {
        let name = "pl_\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try Connection.connect(url: adminURL)
        try admin.execute("create database \(identifier: name)")
        return try url(database: name)
    }

    /// A new database with every migration applied (copied from a template migrated once per run).
    public static func fresh(prefix: String = "t") throws -> String {
        let template = try templateName.withLock { cached -> String in
            if let cached { return cached }
            let name = "pl_template_\(UUID().uuidString.prefix(8).lowercased())"
            let admin = try Connection.connect(url: adminURL)
            try admin.execute("create database \(identifier: name)")
            let connection = try Connection.connect(url: url(database: name))
            try Migrator(directory: sqlDirectory).migrate(connection)
            cached = name
            return name
        }
        let name = "pl_\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try Connection.connect(url: adminURL)
        try admin.execute("create database \(identifier: name) template \(identifier: template)")
        return try url(database: name)
    }
}

extension TestDatabase {
    /// Waits until every invalid-token feed position stored in the database at `url` lies below
    /// the feed's horizon, i.e. no transaction anywhere in the cluster (other tests' included)
    /// older than the latest one is still running. Feed reads after this serve every stored row.
    public static func waitForFeedHorizon(on connection: Connection) throws {
        let sql: SQL =
            """
            select coalesce(max(feed_xid) < pushledger_invalid_tokens_horizon(), true) as settled from \
            token_invalidations
            """
        while try !connection.query(sql)[0].decode("settled", as: Bool.self) { usleep(2_000) }
    }
}

extension TestDatabase {
    /// `url` as a new login in role `pushledger_reader` (the migrations' read-only role) whose
    /// every transaction is read-only (`default_transaction_read_only`), so any write fails
    /// instead of passing unnoticed.
    public static func readOnlyReaderURL(for url: String) throws -> String {
        let name = "pl_reader_\(UUID().uuidString.prefix(8).lowercased())"
        try Connection.connect(url: adminURL).execute("create role \(identifier: name) login in role pushledger_reader")
        var parts = URLComponents(string: url)!
        parts.user = name
        parts.password = nil
        // libpq takes one '=' a parameter: the setting's own is percent-encoded.
        let options = "options=-c%20default_transaction_read_only%3Don"
        parts.percentEncodedQuery = [parts.percentEncodedQuery, options].compactMap { $0 }.joined(separator: "&")
        return parts.string!
    }
}
