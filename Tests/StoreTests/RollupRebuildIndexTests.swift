import Foundation
import Postgres
import Reports
import Store
import Testing

@testable import OutcomeEngine

/// A rebuild loads send_outcomes and open_landing_notifications without their indexes and
/// builds them after the load (pushledger_drop_indexes): it must leave exactly the indexes and
/// keys the migrations made, enforcing them.
@Suite struct RollupRebuildIndexTests {
    typealias F = Fixture

    static func definitions(_ connection: Connection) throws -> String {
        try connection.query(
            """
            select string_agg(d, E'\\n' order by d) as d from (
                select pg_get_indexdef(i.indexrelid) as d from pg_index i
                 where i.indrelid in ('send_outcomes'::regclass, 'open_landing_notifications'::regclass)
                union all
                select conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) from pg_constraint
                 where conrelid in ('send_outcomes'::regclass, 'open_landing_notifications'::regclass)) x
            """)[0].decode("d")
    }

    @Test func aRebuildKeepsTheIndexesAndKeys() throws {
        let db = try StoreDatabase()
        let before = try Self.definitions(db.connection)
        #expect(
            before.contains("send_outcomes_pkey") && before.contains("send_outcomes_pending")
                && before.contains("send_outcomes_uninstrumented") && before.contains("open_landing_notifications_pkey")
        )
        var world = RandomIngest(seed: 7)
        for hour in stride(from: -40.0, to: 0, by: 4) {
            _ = try db.write(world.sends(at: hour, receivedAt: F.time(hour)))
            for unit in world.units(at: hour) { _ = try db.write(unit) }
        }
        for full in [true, false, true] {
            _ = try ReportRollups.refresh(connection: db.connection, asOf: F.time(0), full: full)
            #expect(try Self.definitions(db.connection) == before)
        }
        let sends: Int = try db.value("select count(*)::int from send_outcomes")
        #expect(sends > 0)
        // The rebuilt primary key holds: a second row for a stored send is refused.
        #expect(throws: PostgresError.self) {
            try db.connection.execute("insert into send_outcomes select * from send_outcomes limit 1")
        }
    }
}
