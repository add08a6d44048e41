import Foundation
import Postgres
import Store
import TestSupport
import Testing

@testable import OutcomeEngine
@testable import Reports

/// The upgrade guarantee (docs/operations/upgrading.md): a database migrated by the previous
/// release (its schema snapshot, Tests/Fixtures/releases/<version>.sql, written by
/// scripts/release-snapshot.sh) and filled is upgraded in place by the migrator of this tree to
/// the schema a fresh database gets (`pg_dump --schema-only`), with its data and rollups intact.
@Suite("Upgrading a database of the previous release")
struct ReleaseUpgradeTests {
    /// The release the snapshot stands for: the newest file of Tests/Fixtures/releases.
    static let previous: URL = {
        let folder = TestDatabase.repositoryRoot.appendingPathComponent("Tests/Fixtures/releases")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let versions = names.filter { $0.hasSuffix(".sql") }.map { String($0.dropLast(4)) }
        let numbers = { (version: String) in version.split(separator: ".").compactMap { Int($0) } }
        let newest = versions.max { numbers($0).lexicographicallyPrecedes(numbers($1)) }
        return folder.appendingPathComponent((newest ?? "missing") + ".sql")
    }()

    /// A database as the previous release left it: its snapshot restored. The dump empties the
    /// session's search_path, so the connection returned is a new one.
    static func released() throws -> (String, Connection) {
        let url = try TestDatabase.empty(prefix: "old")
        try Connection.connect(url: url).executeScript(try String(contentsOf: previous, encoding: .utf8))
        return (url, try Connection.connect(url: url))
    }

    /// The migrations the previous release had applied, by file name.
    static func appliedByRelease(_ connection: Connection) throws -> Set<String> {
        Set(
            try connection.query("select version, name from schema_migrations").map { row in
                String(
                    format: "%04d_%@.sql", try row.decode("version", as: Int.self),
                    try row.decode("name", as: String.self))
            })
    }

    /// Every outcome rule's sends (as a v1.2 sender stores them: the release had no v1.3 fields)
    /// and the prompt cohorts, with their rollups as of the fixture's time.
    static func fill(_ url: String) throws {
        let outcomes = try OutcomeFixture(into: try Fixture(url: url), confirmability: false)
        let prompts = try PromptFixture(into: outcomes.fixture)
        let connection = prompts.fixture.connection
        // The released schema has no single pass function: its refresh is the release's own calls.
        let released = try connection.query(
            "select to_regproc('pushledger_rollup_pass') is null as released")[0].decode("released", as: Bool.self)
        guard released else {
            _ = try ReportRollups.refresh(connection: connection, asOf: OutcomeFixture.asOf)
            return
        }
        try connection.transaction { c in
            _ = try c.query("select pushledger_refresh_prompt_rollups(\(OutcomeFixture.asOf))")
            _ = try c.query("select * from pushledger_refresh_report_rollups(\(OutcomeFixture.asOf), '24 hours')")
            try c.execute("select pushledger_record_rollup_pass()")
        }
    }

    /// Every row of every table but the migrator's own, as text, sorted per table; columns that
    /// hold the wall-clock time of a refresh or insert, or a transaction id, are left out. The
    /// prompt cohorts' hours to prompt are compared as sets (their order means nothing: medians).
    /// `columns` (a table's column list) reads the tables and columns another schema had.
    static func contents(_ connection: Connection, columns: [String: String]? = nil) throws -> [String: String] {
        var out: [String: String] = [:]
        for (table, list) in try columns ?? Self.columns(connection) {
            out[table] = try connection.query(
                """
                select coalesce(string_agg(t::text, E'\\n' order by t::text), '') from (select \(unsafeRaw: list) \
                from \(identifier: table)) t
                """
            )[0].decode(0, as: String.self)
        }
        return out
    }

    /// The compared columns of each table, as a select list.
    static func columns(_ connection: Connection) throws -> [String: String] {
        let tables = try connection.query(
            """
            select c.relname from pg_class c
             where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and not c.relispartition
               and c.relname not in ('schema_migrations', 'schema_definitions')
             order by 1
            """
        ).map { try $0.decode(0, as: String.self) }
        var out: [String: String] = [:]
        for table in tables {
            out[table] = try connection.query(
                """
                select string_agg(case when attname = 'hours_to_prompt'
                                       then '(select array_agg(h order by h) from unnest(hours_to_prompt) h) as \
                hours_to_prompt'
                                       else quote_ident(attname) end, ', ' order by attnum) from pg_attribute
                 where attrelid = \(table)::regclass and attnum > 0 and not attisdropped
                   and attname not in ('refreshed_at', 'marked_at', 'created_at', 'imported_at', 'feed_xid')
                """)[0].decode(0, as: String.self)
        }
        return out
    }

    /// Tables of the incremental refresh's state (sql/migrations/0007_send_outcomes.sql,
    /// 0008_prompt_cohort_members.sql).
    /// send_rollups_daily too: rows counted before causes and latency existed (0010) hold none,
    /// and that migration makes the next refresh rebuild them.
    static let refreshState: Set<String> = [
        "send_outcomes", "open_landing_notifications", "rollup_inputs", "rollup_refresh_state", "prompt_cohort_members",
        "prompt_rollup_state",
        "send_rollups_daily",
    ]

    /// `pg_dump --schema-only`, without the per-run `\restrict` key lines.
    static func schema(_ url: String) throws -> String {
        try PostgresDump.run(["--schema-only"], url: url)
    }

    @Test func upgradesToTheFreshSchemaWithDataAndRollupsIntact() throws {
        let (oldURL, old) = try Self.released()
        try Self.fill(oldURL)
        let released = try Self.columns(old)
        let before = try Self.contents(old, columns: released)
        #expect(try old.query("select count(*) from send_rollups_daily")[0].decode(0, as: Int.self) > 0)
        #expect(try old.query("select count(*) from prompt_cohorts_daily")[0].decode(0, as: Int.self) > 0)

        let migrator = try Migrator(directory: TestDatabase.sqlDirectory)
        let applied = try Self.appliedByRelease(old)
        #expect(applied.contains("0001_baseline.sql"))
        let outcome = try migrator.migrate(old)
        // Exactly the migrations the release did not have run, in order.
        #expect(outcome.migrations == migrator.migrations.map(\.fileName).filter { !applied.contains($0) })
        // What the release stored reads the same; later migrations only add tables and columns
        // (and may drop the refresh's derived state, which the next refresh rebuilds, and
        // tables that never hold a row: the writer's former staging templates).
        let kept = try Self.columns(old)
        let dropped = Set(released.keys).subtracting(kept.keys)
        #expect(dropped.allSatisfy { before[$0] == "" }, "\(dropped.sorted())")
        #expect(
            try Self.contents(old, columns: released.filter { kept[$0.key] != nil })
                .filter { !Self.refreshState.contains($0.key) }
                == before.filter { !Self.refreshState.contains($0.key) && !dropped.contains($0.key) })

        let freshURL = try TestDatabase.fresh(prefix: "new")
        try Self.fill(freshURL)
        let fresh = try Connection.connect(url: freshURL)
        // The incremental refresh's own state is derived: an upgraded database builds it at its
        // first refresh (a rebuild), so it is compared after that refresh below.
        let after = try Self.contents(old).filter { !Self.refreshState.contains($0.key) }
        let expected = try Self.contents(fresh).filter { !Self.refreshState.contains($0.key) }
        #expect(after.keys.sorted() == expected.keys.sorted())
        for table in expected.keys.sorted() { #expect(after[table] == expected[table], "\(table)") }

        let (oldSchema, freshSchema) = (try Self.schema(oldURL), try Self.schema(freshURL))
        #expect(oldSchema.contains("CREATE FUNCTION public.pushledger_classify_sends"))
        let (oldLines, freshLines) = (oldSchema.split(separator: "\n"), freshSchema.split(separator: "\n"))
        let first = zip(oldLines, freshLines).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(
            oldSchema == freshSchema,
            """
            first difference at line \(first?.offset ?? min(oldLines.count, freshLines.count)): \
            \(first.map { "\($0.element.0) | \($0.element.1)" } ?? "one dump is longer")
            """
        )

        // Both are now one schema: a refresh after the upgrade computes the same rollups.
        for connection in [old, fresh] {
            try connection.execute("select pushledger_mark_rollups_dirty(\(Fixture.app), '2026-11-01', '2026-11-12')")
            _ = try ReportRollups.refresh(connection: connection, asOf: OutcomeFixture.asOf)
        }
        // send_outcomes included; the queue and the refresh's bookkeeping (what the last refresh
        // did, inputs queued before the upgrade) are not rollups.
        let bookkeeping: Set<String> = ["rollup_inputs", "rollup_refresh_state"]
        let (upgraded, reference) = (try Self.contents(old), try Self.contents(fresh))
        #expect(upgraded.keys.sorted() == reference.keys.sorted())
        for table in reference.keys.sorted() where !bookkeeping.contains(table) {
            #expect(upgraded[table] == reference[table], "\(table)")
        }
    }

    /// An upgraded database takes a simulated fleet through the ingest server and reports the
    /// simulator's truth.
    @Test func anUpgradedReleasedDatabaseTakesIngestAndReportsTheSimulatorsTruth() throws {
        let (url, old) = try Self.released()
        try Migrator(directory: TestDatabase.sqlDirectory).migrate(old)
        let (_, truth) = try SimulatorTruthTests.simulate(seed: 5, url: url)
        _ = try ReportRollups.refresh(connection: old)
        try SimulatorTruthTests.check(old, truth)
    }
}
