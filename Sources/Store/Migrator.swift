import Foundation
import Postgres
import PushLedgerSupport

/// Brings a database onto the SQL of `sql/`: applies the pending numbered migrations in order,
/// each in its own transaction (recorded in `schema_migrations`), then re-applies every
/// definition file whose text (or that of a file it is built from) changed, in `definitions.list`
/// order and in one transaction
/// (recorded in `schema_definitions`). A database migrated by any earlier release is upgraded
/// this way (docs/operations/upgrading.md). Two runs at once are serialised by an advisory lock; an applied migration
/// whose text changed
/// is an error naming it.
public struct Migrator: Sendable {
    public typealias Migration = MigrationSource.Migration
    public typealias Definition = MigrationSource.Definition

    /// One line of `migrate --status`.
    public struct Status: Sendable, Equatable {
        public enum Kind: String, Sendable { case migration, definition }
        public enum State: String, Sendable { case applied, pending, changed }
        public let kind: Kind
        /// A migration's file name, or a definition's path below `sql/`.
        public let name: String
        public let state: State
        public let appliedAt: Date?
    }

    /// What a run did.
    public struct Outcome: Sendable, Equatable {
        public var migrations: [String] = []
        public var definitions: [String] = []
        public init() {}
    }

    /// Every failure, with a message safe to show; `detail` adds the server's words for logs.
    public enum Failure: Error, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
        case badFileName(String)
        case duplicateVersion(Int)
        case changed(file: String)
        case unreadable(String)
        case badDefinitionList(line: Int, String)
        case unlistedDefinition(String)
        /// A migration or definition file failed; `message` is the database error's safe text.
        case failed(file: String, message: String, detail: String)

        public var description: String {
            switch self {
            case .badFileName(let name): "migration file name \(name) is not NNNN_name.sql"
            case .duplicateVersion(let v): "two migration files have version \(v)"
            case .changed(let file): "migration \(file) was changed after it was applied; add a new migration instead"
            case .unreadable(let path): "cannot read \(path)"
            case .badDefinitionList(let line, let path):
                """
                \(MigrationSource.definitionsList) line \(line): \(path) is not a new relative path to a .sql \
                file outside migrations/
                """
            case .unlistedDefinition(let path): "\(path) is not listed in \(MigrationSource.definitionsList)"
            case .failed(let file, let message, _): "\(file) failed: \(message)"
            }
        }

        public var debugDescription: String {
            if case .failed(_, _, let detail) = self { return description + " (" + detail + ")" }
            return description
        }
    }

    /// Arbitrary constant shared by every PushLedger process: the advisory lock's key.
    static let lockKey = 7_245_019_311
    public let source: MigrationSource
    public var migrations: [Migration] { source.migrations }
    public var definitions: [Definition] { source.definitions }

    /// Reads the `sql/` folder `directory`.
    public init(directory: URL) throws(Failure) {
        source = try MigrationSource(directory: directory)
    }

    /// Applies what is pending; `progress` names each file before it runs.
    @discardableResult
    public func migrate(_ connection: Connection, progress: (String) -> Void = { _ in }) throws -> Outcome {
        try withLock(connection) {
            var outcome = Outcome()
            let applied = try recorded(connection, "select version::text as key, checksum from schema_migrations")
            for migration in migrations {
                let checksum = Self.checksum(migration.sql)
                if let existing = applied[String(migration.version)] {
                    guard existing == checksum else { throw Failure.changed(file: migration.fileName) }
                    continue
                }
                progress(migration.fileName)
                try connection.transaction { connection in
                    try Self.run(migration.sql, file: migration.fileName, on: connection)
                    try connection.execute(
                        """
                        insert into schema_migrations (version, name, checksum)
                        values (\(migration.version), \(migration.name), \(checksum))
                        """)
                }
                outcome.migrations.append(migration.fileName)
            }
            outcome.definitions = try applyDefinitions(connection, progress: progress)
            return outcome
        }
    }

    /// Re-applies the changed definition files in list order, all in one transaction, and
    /// forgets files no longer listed (their objects go by a migration that drops them).
    private func applyDefinitions(_ connection: Connection, progress: (String) -> Void) throws -> [String] {
        let applied = try recorded(connection, "select path as key, checksum from schema_definitions")
        let changed = definitions.filter { applied[$0.path] != Self.checksum($0.source) }
        let listed = Set(definitions.map(\.path))
        let forgotten = applied.keys.filter { !listed.contains($0) }.sorted()
        guard !changed.isEmpty || !forgotten.isEmpty else { return [] }
        try connection.transaction { connection in
            for definition in changed {
                progress(definition.path)
                try Self.run(definition.sql, file: definition.path, on: connection)
                try connection.execute(
                    """
                    insert into schema_definitions (path, checksum) values (\(definition.path), \
                    \(Self.checksum(definition.source)))
                    on conflict (path) do update set checksum = excluded.checksum, applied_at = now()
                    """)
            }
            for path in forgotten { try connection.execute("delete from schema_definitions where path = \(path)") }
        }
        return changed.map(\.path)
    }

    /// Migrations, then definitions, in apply order.
    public func status(_ connection: Connection) throws -> [Status] {
        try withLock(connection) {
            let migrationRows = try connection.query("select version, checksum, applied_at from schema_migrations")
            var applied: [String: (String, Date)] = [:]
            for row in migrationRows {
                applied[String(try row.decode("version", as: Int.self))] = (
                    try row.decode("checksum"), try row.decode("applied_at")
                )
            }
            var out: [Status] = migrations.map { m in
                Self.status(.migration, m.fileName, text: m.sql, recorded: applied[String(m.version)])
            }
            var definitionRows: [String: (String, Date)] = [:]
            for row in try connection.query("select path, checksum, applied_at from schema_definitions") {
                definitionRows[try row.decode("path")] = (try row.decode("checksum"), try row.decode("applied_at"))
            }
            out += definitions.map {
                Self.status(.definition, $0.path, text: $0.source, recorded: definitionRows[$0.path])
            }
            return out
        }
    }

    private static func status(_ kind: Status.Kind, _ name: String, text: String, recorded: (String, Date)?) -> Status {
        guard let (checksum, at) = recorded else {
            return Status(kind: kind, name: name, state: .pending, appliedAt: nil)
        }
        return Status(
            kind: kind, name: name, state: checksum == Self.checksum(text) ? .applied : .changed, appliedAt: at)
    }

    private func withLock<T>(_ connection: Connection, _ body: () throws -> T) throws -> T {
        try connection.execute("select pg_advisory_lock(\(Self.lockKey))")
        defer { _ = try? connection.execute("select pg_advisory_unlock(\(Self.lockKey))") }
        try connection.executeScript(
            """
            create table if not exists schema_migrations (
                version    integer primary key,
                name       text not null,
                checksum   text not null,
                applied_at timestamptz not null default now()
            );
            create table if not exists schema_definitions (
                path       text primary key,
                checksum   text not null,
                applied_at timestamptz not null default now()
            )
            """)
        return try body()
    }

    private func recorded(_ connection: Connection, _ query: SQL) throws -> [String: String] {
        var out: [String: String] = [:]
        for row in try connection.query(query) { out[try row.decode("key")] = try row.decode("checksum") }
        return out
    }

    /// A lost connection is thrown as is (the caller tells it from a broken file; the file's
    /// transaction was not applied, or for a lost COMMIT, may have been).
    static func run(_ script: String, file: String, on connection: Connection) throws {
        do {
            try connection.executeScript(script)
        } catch  where error.isConnectionProblem {
            throw error
        } catch {
            throw Failure.failed(file: file, message: error.description, detail: error.debugDescription)
        }
    }

    /// SHA-256 of the file's UTF-8 text, in hex: the checksum releases have always recorded.
    static func checksum(_ text: String) -> String { SHA256.hex(SHA256.hash(text)) }
}
