import Foundation
import Postgres
import PushLedgerSupport
import Store
import TestSupport
import Testing

/// Recognising a database migrated by the releases a baseline folds, on a small folder of its own.
@Suite struct LegacySchemaTests {
    let directory: URL
    let legacy: URL
    let url: String
    static let first = "create table a (id int);"
    static let second = "create table b (id int);"

    init() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("legacy-\(UUID().uuidString)")
        directory = root.appendingPathComponent("sql")
        legacy = root.appendingPathComponent("released")
        url = try TestDatabase.empty(prefix: "leg")
        for (path, text) in [
            ("sql/migrations/0001_baseline.sql", Self.first + Self.second),
            ("sql/migrations/0002_later.sql", "create table c (id int);"),
            ("sql/fns/a.sql", "create or replace function a_count() returns bigint language sql as $$ select count(*) from a $$;"),
            ("sql/definitions.list", "fns/a.sql\n"),
            ("sql/legacy-migrations.txt", "1 first \(Self.sum(Self.first))\n2 second \(Self.sum(Self.second))\n"),
            ("released/0001_first.sql", Self.first),
            ("released/0002_second.sql", Self.second),
        ] {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
    }

    static func sum(_ text: String) -> String { SHA256.hex(SHA256.hash(text)) }

    private func rows(_ connection: Connection) throws -> [String] {
        try connection.query("select version, name from schema_migrations order by version").map {
            "\(try $0.decode("version", as: Int.self)) \(try $0.decode("name", as: String.self))"
        }
    }

    @Test func aReleasedDatabaseIsFoldedWithoutRunningTheBaseline() throws {
        let connection = try Connection.connect(url: url)
        try LegacyMigrations.migrate(files: legacy, on: connection)
        let status = try Migrator(directory: directory).status(connection)
        #expect(status.map(\.state) == [.legacy, .pending, .pending])
        let outcome = try Migrator(directory: directory).migrate(connection)
        // Running the baseline would fail: its tables exist.
        #expect(outcome.foldedLegacy && outcome.migrations == ["0002_later.sql"] && outcome.definitions == ["fns/a.sql"])
        #expect(try rows(connection) == ["1 baseline", "2 later"])
        #expect(try Migrator(directory: directory).status(connection).map(\.state) == [.applied, .applied, .applied])
        #expect(try Migrator(directory: directory).migrate(connection) == Migrator.Outcome())
    }

    @Test func aFreshDatabaseRunsTheBaseline() throws {
        let connection = try Connection.connect(url: url)
        let outcome = try Migrator(directory: directory).migrate(connection)
        #expect(!outcome.foldedLegacy && outcome.migrations == ["0001_baseline.sql", "0002_later.sql"])
    }

    @Test func aPartlyMigratedDatabaseIsRefusedAndLeftAsItWas() throws {
        let connection = try Connection.connect(url: url)
        try FileManager.default.removeItem(at: legacy.appendingPathComponent("0002_second.sql"))
        try LegacyMigrations.migrate(files: legacy, on: connection)
        #expect(throws: Migrator.Failure.unrecognisedLegacy(missing: ["0002_second.sql"], changed: [], unknown: [])) {
            try Migrator(directory: directory).migrate(connection)
        }
        #expect(try rows(connection) == ["1 first"])
        #expect(try connection.query("select to_regclass('c') is null as none")[0].decode("none", as: Bool.self))
    }

    @Test func otherChecksumsOrVersionsAreRefused() throws {
        let connection = try Connection.connect(url: url)
        try LegacyMigrations.migrate(files: legacy, on: connection)
        try connection.execute("update schema_migrations set checksum = 'edited' where version = 2")
        try connection.execute("insert into schema_migrations (version, name, checksum) values (7, 'local', 'x')")
        let failure = Migrator.Failure.unrecognisedLegacy(missing: [], changed: ["0002_second.sql"], unknown: [7])
        #expect(throws: failure) { try Migrator(directory: directory).migrate(connection) }
        #expect("\(failure)".contains("changed: 0002_second.sql; unknown versions: 7"))
        #expect(try rows(connection) == ["1 first", "2 second", "7 local"])
    }
}
