import Foundation
import Postgres

/// A database migrated by the releases whose migrations the baseline folds
/// (`sql/legacy-migrations.txt`): its `schema_migrations` rows name those files. Folding it
/// replaces them with the baseline's row without running the baseline (the database already
/// holds its tables); the definition files then replace the functions those migrations left.
struct LegacySchema {
    let source: MigrationSource

    /// The baseline: the first migration, which folds the released ones.
    private var baseline: MigrationSource.Migration? { source.folded.isEmpty ? nil : source.migrations.first }

    /// True when the rows name a folded migration (and are not the baseline's own).
    func isLegacy(_ connection: Connection) throws -> Bool {
        guard let baseline else { return false }
        let byVersion = Dictionary(source.folded.map { ($0.version, $0.name) }, uniquingKeysWith: { first, _ in first })
        return try rows(connection).contains { row in
            byVersion[row.version] == row.name && !(row.version == baseline.version && row.name == baseline.name)
        }
    }

    /// Moves a legacy database onto the baseline; false when it is none. A database holding only
    /// some of the folded migrations, other checksums or other versions is refused: it was not
    /// migrated by the release the baseline was cut from, and its tables may differ.
    func fold(_ connection: Connection) throws -> Bool {
        guard let baseline, try isLegacy(connection) else { return false }
        let found = Dictionary(try rows(connection).map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        let missing = source.folded.filter { found[$0.version] == nil }
        let changed = source.folded.filter { f in found[f.version].map { $0.name != f.name || $0.checksum != f.checksum } ?? false }
        let known = Set(source.folded.map(\.version))
        let unknown = found.keys.filter { !known.contains($0) }.sorted()
        guard missing.isEmpty, changed.isEmpty, unknown.isEmpty else {
            throw Migrator.Failure.unrecognisedLegacy(
                missing: missing.map(Self.fileName), changed: changed.map(Self.fileName), unknown: unknown)
        }
        try connection.transaction { connection in
            // The baseline counts as applied when the first folded migration was.
            try connection.execute(
                """
                with folded as (delete from schema_migrations returning applied_at)
                insert into schema_migrations (version, name, checksum, applied_at)
                select \(baseline.version), \(baseline.name), \(Migrator.checksum(baseline.sql)), min(applied_at) from folded
                """)
            try connection.execute("delete from schema_definitions")
        }
        return true
    }

    private static func fileName(_ m: MigrationSource.FoldedMigration) -> String { String(format: "%04d_%@.sql", m.version, m.name) }

    private func rows(_ connection: Connection) throws -> [(version: Int, name: String, checksum: String)] {
        try connection.query("select version, name, checksum from schema_migrations").map { row in
            (try row.decode("version"), try row.decode("name"), try row.decode("checksum"))
        }
    }
}
