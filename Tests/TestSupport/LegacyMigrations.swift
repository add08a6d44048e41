import Foundation
import Postgres

/// Migrates a database as the releases before the baseline did: every `NNNN_name.sql` of a
/// folder in order, each in its own transaction, recorded in `schema_migrations` with the
/// SHA-256 of its text (today's `Tests/Fixtures/schema-0046` holds the files of the last such release).
public enum LegacyMigrations {
    /// The frozen migrations 0001-0046 as released.
    public static var schema0046: URL { TestDatabase.repositoryRoot.appendingPathComponent("Tests/Fixtures/schema-0046") }

    public static func migrate(files directory: URL, on connection: Connection) throws {
        try connection.executeScript(
            """
            create table if not exists schema_migrations (
                version    integer primary key,
                name       text not null,
                checksum   text not null,
                applied_at timestamptz not null default now()
            )
            """)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".sql") }.sorted()
        for name in names {
            let sql = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            let stem = name.dropLast(4)
            let underscore = stem.firstIndex(of: "_")!
            try connection.transaction { connection in
                try connection.executeScript(sql)
                try connection.execute(
                    """
                    insert into schema_migrations (version, name, checksum)
                    values (\(Int(stem[..<underscore])!), \(String(stem[stem.index(after: underscore)...])),
                            encode(sha256(convert_to(\(sql), 'UTF8')), 'hex'))
                    """)
            }
        }
    }
}
