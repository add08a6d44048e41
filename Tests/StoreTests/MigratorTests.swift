import Dispatch
import Foundation
import Postgres
import Store
import Synchronization
import TestSupport
import Testing

@Suite struct MigratorTests {
    let directory: URL
    let url: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-\(UUID().uuidString)")
        url = try TestDatabase.empty(prefix: "mig")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try write("0001_first.sql", "create table a (id int); insert into a values (1);")
        try write("0002_second.sql", "create table b (id int);")
    }

    private func write(_ name: String, _ text: String) throws {
        try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    @Test func appliesInOrderOnceAndRecordsChecksums() throws {
        let connection = try Connection.connect(url: url)
        let first = try Migrator(directory: directory).migrate(connection)
        #expect(first.map(\.fileName) == ["0001_first.sql", "0002_second.sql"])
        #expect(try Migrator(directory: directory).migrate(connection).isEmpty)
        #expect(try connection.query("select count(*) as c from a")[0].decode("c", as: Int.self) == 1)
        let sums = try connection.query("select checksum from schema_migrations order by version").map { try $0.decode(0, as: String.self) }
        #expect(sums.count == 2 && sums.allSatisfy { $0.count == 64 })
    }

    @Test func statusListsAppliedAndPending() throws {
        let connection = try Connection.connect(url: url)
        try Migrator(directory: directory).migrate(connection)
        try write("0003_third.sql", "create table c (id int);")
        let status = try Migrator(directory: directory).status(connection)
        #expect(status.map(\.state) == [.applied, .applied, .pending])
        #expect(status.last?.name == "third")
    }

    @Test func changedFileIsAnErrorNamingIt() throws {
        let connection = try Connection.connect(url: url)
        try Migrator(directory: directory).migrate(connection)
        try write("0002_second.sql", "create table b (id int, extra text);")
        #expect(throws: Migrator.Failure.changed(file: "0002_second.sql")) {
            try Migrator(directory: directory).migrate(connection)
        }
        #expect(try Migrator(directory: directory).status(connection).map(\.state) == [.applied, .changed])
    }

    @Test func failingMigrationRollsBackAlone() throws {
        let connection = try Connection.connect(url: url)
        try write("0003_broken.sql", "create table c (id int); select * from missing_table;")
        #expect(throws: PostgresError.self) { try Migrator(directory: directory).migrate(connection) }
        #expect(try Migrator(directory: directory).status(connection).map(\.state) == [.applied, .applied, .pending])
        let exists: Bool = try connection.query("select to_regclass('c') is not null as e")[0].decode("e")
        #expect(!exists)
    }

    @Test func concurrentRunsApplyEachMigrationOnce() throws {
        let applied = Mutex<[String]>([])
        let errors = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let connection = try Connection.connect(url: url)
                let done = try Migrator(directory: directory).migrate(connection)
                applied.withLock { $0 += done.map(\.fileName) }
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        #expect(errors.withLock { $0 } == [])
        #expect(applied.withLock { $0.sorted() } == ["0001_first.sql", "0002_second.sql"])
    }

    @Test func badFileNamesAreRefused() throws {
        try write("12_short.sql", "select 1")
        #expect(throws: Migrator.Failure.badFileName("12_short.sql")) { try Migrator(directory: directory) }
        #expect(throws: Migrator.Failure.unreadable("/no/such/dir")) { try Migrator(directory: URL(fileURLWithPath: "/no/such/dir")) }
    }
}
