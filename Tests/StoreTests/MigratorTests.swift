import Dispatch
import Foundation
import Postgres
import PushLedgerSupport
import Store
import Synchronization
import TestSupport
import Testing

/// The migrator on a throwaway `sql/` folder: migrations, definition files, the folded list.
@Suite struct MigratorTests {
    let directory: URL
    let url: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sql-\(UUID().uuidString)")
        url = try TestDatabase.empty(prefix: "mig")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("migrations"), withIntermediateDirectories: true)
        try write("migrations/0001_first.sql", "create table a (id int); insert into a values (1);")
        try write("migrations/0002_second.sql", "create table b (id int);")
        try write(
            "fns/a.sql",
            "create or replace function a_count() returns bigint language sql as $$ select count(*) from a $$;")
        try write("views/b.sql", "drop view if exists b_ids; create view b_ids as select id, a_count() as a from b;")
        try write("definitions.list", "# apply order\nfns/a.sql\n\nviews/b.sql  # uses a_count\n")
    }

    private func write(_ path: String, _ text: String) throws {
        let url = directory.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    private func states(_ connection: Connection) throws -> [String] {
        try Migrator(directory: directory).status(connection).map {
            "\($0.kind.rawValue) \($0.name) \($0.state.rawValue)"
        }
    }

    @Test func appliesMigrationsThenDefinitionsOnceAndRecordsChecksums() throws {
        let connection = try Connection.connect(url: url)
        #expect(
            try states(connection) == [
                "migration 0001_first.sql pending", "migration 0002_second.sql pending",
                "definition fns/a.sql pending", "definition views/b.sql pending",
            ])
        var order: [String] = []
        let first = try Migrator(directory: directory).migrate(connection) { order.append($0) }
        #expect(first.migrations == ["0001_first.sql", "0002_second.sql"])
        #expect(first.definitions == ["fns/a.sql", "views/b.sql"])
        #expect(order == first.migrations + first.definitions)
        #expect(try Migrator(directory: directory).migrate(connection) == Migrator.Outcome())
        #expect(try connection.query("select a_count() as c")[0].decode("c", as: Int.self) == 1)
        let sums = try connection.query("select checksum from schema_definitions order by path").map {
            try $0.decode(0, as: String.self)
        }
        #expect(
            sums == [
                SHA256.hex(
                    SHA256.hash(
                        try String(contentsOf: directory.appendingPathComponent("fns/a.sql"), encoding: .utf8))),
                SHA256.hex(
                    SHA256.hash(
                        try String(contentsOf: directory.appendingPathComponent("views/b.sql"), encoding: .utf8))),
            ])
        #expect(try states(connection).allSatisfy { $0.hasSuffix(" applied") })
    }

    @Test func anEditedDefinitionIsAppliedAgainAlone() throws {
        let connection = try Connection.connect(url: url)
        try Migrator(directory: directory).migrate(connection)
        try write(
            "fns/a.sql",
            "create or replace function a_count() returns bigint language sql as $$ select count(*) + 10 from a $$;")
        #expect(try states(connection)[2] == "definition fns/a.sql changed")
        let again = try Migrator(directory: directory).migrate(connection)
        #expect(again.migrations.isEmpty && again.definitions == ["fns/a.sql"])
        #expect(
            try connection.query("select a from b_ids union all select a_count()").map {
                try $0.decode(0, as: Int.self)
            } == [11])
    }

    @Test func aFailingDefinitionRollsBackEveryDefinitionOfTheRun() throws {
        let connection = try Connection.connect(url: url)
        try write("views/b.sql", "create view b_ids as select * from missing_table;")
        #expect {
            try Migrator(directory: directory).migrate(connection)
        } throws: { error in
            guard case .failed(let file, let message, let detail) = error as? Migrator.Failure else { return false }
            return file == "views/b.sql" && message.contains("42P01") && detail.contains("missing_table")
                && "\(error)".hasPrefix("views/b.sql failed: database error 42P01")
        }
        // The migrations committed; no definition did.
        #expect(
            try states(connection) == [
                "migration 0001_first.sql applied", "migration 0002_second.sql applied",
                "definition fns/a.sql pending", "definition views/b.sql pending",
            ])
        #expect(
            try connection.query("select to_regprocedure('a_count()') is null as gone")[0].decode("gone", as: Bool.self)
        )
    }

    @Test func aDefinitionNoLongerListedIsForgotten() throws {
        let connection = try Connection.connect(url: url)
        try Migrator(directory: directory).migrate(connection)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("views/b.sql"))
        try write("definitions.list", "fns/a.sql\n")
        #expect(try Migrator(directory: directory).migrate(connection) == Migrator.Outcome())
        #expect(
            try connection.query("select path from schema_definitions").map { try $0.decode(0, as: String.self) } == [
                "fns/a.sql"
            ])
    }

    @Test func changedMigrationIsRefused() throws {
        let connection = try Connection.connect(url: url)
        try Migrator(directory: directory).migrate(connection)
        try write("migrations/0002_second.sql", "create table b (id bigint);")
        #expect(throws: Migrator.Failure.changed(file: "0002_second.sql")) {
            try Migrator(directory: directory).migrate(connection)
        }
        #expect(
            try states(connection)[0...1] == ["migration 0001_first.sql applied", "migration 0002_second.sql changed"])
    }

    @Test func failedMigrationRollsBackAndNamesItsFile() throws {
        let connection = try Connection.connect(url: url)
        try write("migrations/0003_broken.sql", "create table c (id int); select * from missing_table;")
        #expect {
            try Migrator(directory: directory).migrate(connection)
        } throws: { error in
            guard case .failed(let file, let message, _) = error as? Migrator.Failure else { return false }
            return file == "0003_broken.sql" && message.contains("missing_table")
        }
        #expect(
            try states(connection)[0...2] == [
                "migration 0001_first.sql applied", "migration 0002_second.sql applied",
                "migration 0003_broken.sql pending",
            ])
        let exists: Bool = try connection.query("select to_regclass('c') is not null as e")[0].decode("e")
        #expect(!exists)
    }

    @Test func concurrentRunsApplyEachFileOnce() throws {
        let applied = Mutex<[String]>([])
        let errors = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let connection = try Connection.connect(url: url)
                let done = try Migrator(directory: directory).migrate(connection)
                applied.withLock { $0 += done.migrations + done.definitions }
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        #expect(errors.withLock { $0 } == [])
        #expect(applied.withLock { $0.sorted() } == ["0001_first.sql", "0002_second.sql", "fns/a.sql", "views/b.sql"])
    }

    @Test func badFoldersAreRefused() throws {
        #expect(throws: Migrator.Failure.unreadable("/no/such/dir/migrations")) {
            try Migrator(directory: URL(fileURLWithPath: "/no/such/dir"))
        }
        try write("stray/c.sql", "select 1;")
        #expect(throws: Migrator.Failure.unlistedDefinition("stray/c.sql")) { try Migrator(directory: directory) }
        try FileManager.default.removeItem(at: directory.appendingPathComponent("stray"))
        for (line, entry) in [
            (2, "../a.sql"), (2, "/abs/a.sql"), (2, "fns/a.sql"), (2, "migrations/0001_first.sql"), (2, "fns/a.txt"),
        ] {
            try write("definitions.list", "fns/a.sql\n\(entry)\n")
            #expect(throws: Migrator.Failure.badDefinitionList(line: line, entry)) {
                try Migrator(directory: directory)
            }
        }
        try write("definitions.list", "fns/a.sql\nviews/b.sql\nviews/gone.sql\n")
        #expect(throws: Migrator.Failure.unreadable("views/gone.sql")) { try Migrator(directory: directory) }
        try FileManager.default.removeItem(at: directory.appendingPathComponent("definitions.list"))
        #expect(throws: Migrator.Failure.unreadable("definitions.list")) { try Migrator(directory: directory) }
        try write("definitions.list", "fns/a.sql\nviews/b.sql\n")
        try write("migrations/12_short.sql", "select 1")
        #expect(throws: Migrator.Failure.badFileName("12_short.sql")) { try Migrator(directory: directory) }
        try FileManager.default.removeItem(at: directory.appendingPathComponent("migrations/12_short.sql"))
        try write("migrations/0002_again.sql", "select 1")
        #expect(throws: Migrator.Failure.duplicateVersion(2)) { try Migrator(directory: directory) }
    }

    @Test func anotherDatabasesFolderMayNameAFileOfTheMainFolder() throws {
        // sql/directory/ is another database's: its list may say ../fns/a.sql, the main one's file.
        try write("directory/migrations/0001_directory.sql", "create table a (id int);")
        try write("directory/definitions.list", "../fns/a.sql\n")
        let source = try MigrationSource(directory: directory.appendingPathComponent("directory"))
        #expect(source.definitions.map(\.path) == ["../fns/a.sql"])
        #expect(source.definitions.first?.sql.contains("a_count") == true)
        let connection = try Connection.connect(url: url)
        let done = try Migrator(directory: directory.appendingPathComponent("directory")).migrate(connection)
        #expect(done.definitions == ["../fns/a.sql"])
        #expect(try connection.query("select a_count() as n")[0].decode("n", as: Int.self) == 0)
        // Never further up, never into migrations, and never from the main folder itself.
        for entry in ["../../x.sql", "../migrations/0001_first.sql", "../x/../y.sql"] {
            try write("directory/definitions.list", "\(entry)\n")
            #expect(throws: Migrator.Failure.badDefinitionList(line: 1, entry)) {
                try MigrationSource(directory: directory.appendingPathComponent("directory"))
            }
        }
    }
}
