import Foundation
import Postgres
import PushLedgerRules
import Store
import TestSupport
import Testing

/// The counter catalog is written once in SQL (`pushledger_rollup_catalog()`) and mirrored once
/// in Swift (``RollupCatalog``); the rollup table, the rollup-row type and the report functions
/// built from it carry exactly its columns, and a counter added to the catalog alone (with its
/// rule) is counted by a rebuild and returned by the reports.
@Suite struct RollupCatalogTests {
    static func names(_ connection: Connection, _ query: SQL) throws -> [String] {
        try connection.query(query).map { try $0.decode("name", as: String.self) }
    }

    @Test func swiftMirrorsTheSQLCatalog() throws {
        let connection = try Connection.connect(url: try TestDatabase.fresh(prefix: "catalog"))
        let rows = try connection.query(
            "select name, family from pushledger_rollup_catalog() where family <> 'slice' order by ordinal")
        let sql = try rows.map {
            "\(try $0.decode("family", as: String.self)) \(try $0.decode("name", as: String.self))"
        }
        #expect(sql == RollupCatalog.counters.map { "\($0.family.rawValue) \($0.name)" })
        let slices = try Self.names(
            connection, "select name from pushledger_rollup_catalog() where family = 'slice' order by ordinal")
        #expect(slices == RollupCatalog.sliceColumns)
        let inputs = try Self.names(
            connection,
            "select name from pushledger_rollup_catalog() where 'rate_input' = any(groups) order by ordinal")
        #expect(Set(inputs) == Set(OutcomeCounter.rateInputs.map(\.rawValue)))
    }

    /// The table holds every catalog entry (and nothing else but its key and refresh times); the
    /// row type and the report functions return the day, the slices and the outcome, cause and
    /// latency counts in catalog order.
    @Test func theShapesAreTheCatalogs() throws {
        let connection = try Connection.connect(url: try TestDatabase.fresh(prefix: "catalog"))
        let table = try Self.names(
            connection,
            """
            select attname::text as name from pg_attribute
             where attrelid = 'send_rollups_daily'::regclass and attnum > 0 and not attisdropped
            """)
        let catalog = RollupCatalog.sliceColumns + RollupCatalog.counters.map(\.name)
        #expect(Set(table) == Set(catalog + ["app_id", "day", "as_of", "refreshed_at"]))
        let reported =
            ["day"] + RollupCatalog.sliceColumns
            + RollupCatalog.counters.filter { [.outcome, .cause, .latency].contains($0.family) }.map(\.name)
        let row = try Self.names(
            connection,
            """
            select attname::text as name from pg_attribute
             where attrelid = 'pushledger_rollup_row'::regclass and attnum > 0 order by attnum
            """)
        #expect(row == reported)
        for function in ["pushledger_silent_loss", "pushledger_rollups_judged", "pushledger_window_rollup_rows"] {
            let type = try connection.query(
                "select prorettype::regtype::text as type from pg_proc where proname = \(function)")
            #expect(try type.map { try $0.decode("type", as: String.self) } == ["pushledger_rollup_row"], "\(function)")
        }
    }

    /// A scratch counter added to the catalog and its rule, with its column, and nothing else:
    /// the files built from the catalog are applied again, a rebuild counts it, and the reports
    /// return it.
    @Test func aCounterAddedToTheCatalogIsCountedAndReported() throws {
        let db = try StoreDatabase()
        let c = db.connection
        let day = "2026-11-10"
        try c.executeScript(
            """
            insert into sends (app_id, event_id, notification_id, resolved_by, sent_at, received_at, provider, token,
                               channel, status)
            select 'app', gen_random_uuid(), gen_random_uuid(), 'unresolved', '\(day) 10:00+00'::timestamptz,
                   now(), 'fcm', 'token-' || g, 'orders', case when g <= 2 then 400 else 200 end
              from generate_series(1, 5) g
            """)
        // The catalog with one more counter, and its rule: rejected sends counted again.
        let catalog = try String(
            contentsOf: TestDatabase.repositoryRoot.appendingPathComponent("sql/engine/outcome_counters.sql"),
            encoding: .utf8
        )
        .replacingOccurrences(
            of: "(77, 'unexplained_background', 'cause_background', 'bigint', '{}')",
            with: "(77, 'unexplained_background', 'cause_background', 'bigint', '{}'), "
                + "(34, 'scratch', 'outcome', 'bigint', '{}')"
        )
        .replacingOccurrences(
            of: "    when 'sends' then true\n",
            with: "    when 'sends' then true\n    when 'scratch' then p_outcome = 'rejected'\n")
        #expect(catalog.contains("'scratch'"))
        try c.execute("alter table send_rollups_daily add column scratch bigint not null default 0")
        let sql = try MigrationSource(directory: TestDatabase.repositoryRoot.appendingPathComponent("sql"))
        try c.transaction { c in
            try c.executeScript(catalog)
            for definition in sql.definitions where !definition.builtFrom.isEmpty {
                try c.executeScript(definition.sql)
            }
        }
        let listed = try c.query("select count(*)::int as n from pushledger_rollup_catalog() where name = 'scratch'")
        #expect(try listed[0].decode("n", as: Int.self) == 1)
        _ = try c.query("select * from pushledger_rollup_pass(now(), '24 hours'::interval, true)")
        let stored = try c.query("select sum(scratch)::int as n, sum(rejected)::int as r from send_rollups_daily")[0]
        #expect(try stored.decode("n", as: Int.self) == 2)
        #expect(try stored.decode("r", as: Int.self) == 2)
        let reported = try c.query(
            """
            select sum(scratch)::int as n from pushledger_silent_loss('app', \(day)::timestamptz,
                   \(day)::timestamptz + interval '1 day', now(), '24 hours', '{}', 'rollups')
            """)[0]
        #expect(try reported.decode("n", as: Int.self) == 2)
    }
}
