import Foundation
import Postgres

/// Applies the versioned SQL files `sql/migrations/NNNN_name.sql` in order, each in its own
/// transaction, and records them in `schema_migrations` with a checksum. Two runs at once are
/// serialised by an advisory lock; an applied file whose text changed is an error naming it.
public struct Migrator: Sendable {
    /// One migration file.
    public struct Migration: Sendable, Equatable {
        public let version: Int
        public let name: String
        public let sql: String
        public var fileName: String { String(format: "%04d_%@.sql", version, name) }
    }

    /// One line of `migrate --status`.
    public struct Status: Sendable, Equatable {
        public enum State: String, Sendable { case applied, pending, changed }
        public let version: Int
        public let name: String
        public let state: State
        public let appliedAt: Date?
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case badFileName(String)
        case duplicateVersion(Int)
        case changed(file: String)
        case unreadable(String)

        public var description: String {
            switch self {
            case .badFileName(let name): "migration file name \(name) is not NNNN_name.sql"
            case .duplicateVersion(let v): "two migration files have version \(v)"
            case .changed(let file): "migration \(file) was changed after it was applied; add a new migration instead"
            case .unreadable(let path): "cannot read migrations in \(path)"
            }
        }
    }

    /// Arbitrary constant shared by every PushLedger process: the advisory lock's key.
    static let lockKey = 7_245_019_311
    public let migrations: [Migration]

    /// Reads the migrations in `directory`.
    public init(directory: URL) throws {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else {
            throw Failure.unreadable(directory.path)
        }
        var found: [Migration] = []
        for name in names.sorted() where name.hasSuffix(".sql") {
            let stem = name.dropLast(4)
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]),
                stem[..<underscore].count == 4
            else { throw Failure.badFileName(name) }
            guard let text = try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8) else {
                throw Failure.unreadable(name)
            }
            if found.contains(where: { $0.version == version }) { throw Failure.duplicateVersion(version) }
            found.append(Migration(version: version, name: String(stem[stem.index(after: underscore)...]), sql: text))
        }
        migrations = found
    }

    /// Applies every pending migration; returns the ones applied now.
    @discardableResult
    public func migrate(_ connection: Connection, progress: (Migration) -> Void = { _ in }) throws -> [Migration] {
        try withLock(connection) {
            let applied = try appliedChecksums(connection)
            var done: [Migration] = []
            for migration in migrations {
                let checksum = try self.checksum(of: migration, on: connection)
                if let existing = applied[migration.version] {
                    guard existing == checksum else { throw Failure.changed(file: migration.fileName) }
                    continue
                }
                progress(migration)
                try connection.transaction { connection in
                    try connection.executeScript(migration.sql)
                    try connection.execute(
                        """
                        insert into schema_migrations (version, name, checksum)
                        values (\(migration.version), \(migration.name), \(checksum))
                        """)
                }
                done.append(migration)
            }
            return done
        }
    }

    /// Applied, pending and changed migrations, in version order.
    public func status(_ connection: Connection) throws -> [Status] {
        try withLock(connection) {
            let rows = try connection.query("select version, checksum, applied_at from schema_migrations")
            var applied: [Int: (String, Date)] = [:]
            for row in rows {
                applied[try row.decode("version")] = (try row.decode("checksum"), try row.decode("applied_at"))
            }
            return try migrations.map { m in
                guard let (checksum, at) = applied[m.version] else {
                    return Status(version: m.version, name: m.name, state: .pending, appliedAt: nil)
                }
                let same = try self.checksum(of: m, on: connection) == checksum
                return Status(version: m.version, name: m.name, state: same ? .applied : .changed, appliedAt: at)
            }
        }
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
            )
            """)
        return try body()
    }

    private func appliedChecksums(_ connection: Connection) throws -> [Int: String] {
        var out: [Int: String] = [:]
        for row in try connection.query("select version, checksum from schema_migrations") {
            out[try row.decode("version")] = try row.decode("checksum")
        }
        return out
    }

    /// SHA-256 of the file text, computed by the server so no hashing code is needed here.
    private func checksum(of migration: Migration, on connection: Connection) throws -> String {
        try connection.query("select encode(sha256(convert_to(\(migration.sql), 'UTF8')), 'hex') as sum")[0].decode("sum")
    }
}
