import Foundation
import OutcomeEngine
import Postgres
import PushLedgerContract
import Store
import Testing

/// The state a batch derives (installations, the re-resolution of earlier sends) applied later,
/// many batches at once, is the state each batch applying its own would have left.
@Suite struct DerivedStateTests {
    typealias F = Fixture

    /// What the derived state is, and what reads it, as text: one sorted row a line.
    static let tables: [(name: String, columns: String)] = [
        ("installations", "*"),
        ("sends", "event_id, installation_id, resolved_by"),
        ("push_tokens", "*"),
        ("token_invalidations", "app_id, provider, token_key, token, invalidated_at, status, reason, unregistered_at"),
    ]

    static func contents(_ connection: Connection) throws -> [String: String] {
        var result = try IncrementalRollupTests.contents(connection)
        for table in tables {
            result[table.name] = try connection.query(
                """
                select coalesce(string_agg(t::text, E'\\n' order by t::text), '') as rows
                  from (select \(unsafeRaw: table.columns) from \(identifier: table.name)) t
                """)[0].decode("rows")
        }
        return result
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func deferredDerivedStateEqualsEachBatchApplyingItsOwn(seed: UInt64) throws {
        let inline = try StoreDatabase(), deferred = try StoreDatabase()
        var world = RandomIngest(seed: seed)
        var hour = -60.0
        var applied = 0
        for step in 0..<12 {
            let units = (0..<world.int(3...6)).flatMap { _ in world.units(at: hour) }
            var start = 0
            while start < units.count {
                let batch = Array(units[start..<min(units.count, start + world.int(1...4))])
                let one = try EventWriter().write(batch, on: inline.connection)
                let other = try EventWriter().write(batch, on: deferred.connection, deferDerived: true)
                #expect(one == other)
                start += batch.count
            }
            if step < 11 && world.chance(0.4) { applied += try EventWriter().applyDerived(on: deferred.connection) }
            hour += Double(world.int(1...8))
        }
        let waiting = try deferred.count("derived_inputs")
        #expect(applied > 0 && waiting > 0, "applied \(applied), waiting \(waiting)")
        // Rollup status counts what waits; the pass applies it before it takes its inputs.
        let pending: Int = try deferred.value("select pending_inputs::int from pushledger_rollup_status()")
        let queued: Int = try deferred.value(
            "select ((select count(*) from rollup_inputs) + (select count(*) from rollup_dirty_days))::int")
        #expect(pending == queued + waiting)
        let asOf = F.time(hour)
        // A pass's first step says how many batches' derived state it applied: a pass on two
        // connections classifies on one unless it is 0 (the second cannot see that state).
        try deferred.connection.execute("begin")
        let reported: Int = try deferred.value(
            "select derived_applied from pushledger_rollup_pass_start(\(asOf), '24 hours'::interval, false)")
        try deferred.connection.execute("rollback")
        #expect(reported == waiting)
        _ = try IncrementalRollupTests.refresh(inline.connection, asOf: asOf)
        // As on two connections: the derived state applied and committed before the pass's
        // transaction (this first refresh rebuilds, on one).
        let summary = try IncrementalRollupTests.refresh(
            deferred.connection, asOf: asOf, secondConnection: deferred.url)
        #expect(summary.secondConnectionFailure == nil)
        #expect(try deferred.count("derived_inputs") == 0)
        let (mine, theirs) = (try Self.contents(deferred.connection), try Self.contents(inline.connection))
        #expect(try inline.count("installations") > 0 && inline.count("sends", "resolved_by = 'token'") > 0)
        for table in mine.keys.sorted() {
            let (a, b) = (Set(mine[table]!.split(separator: "\n")), Set(theirs[table]!.split(separator: "\n")))
            #expect(
                a == b,
                """
                seed \(seed): \(table) differs; only deferred: \(a.subtracting(b).sorted()); \
                only applied in each batch: \(b.subtracting(a).sorted())
                """)
        }
    }

    /// A late registration re-resolves earlier sends when its batch's derived state is applied.
    @Test func aLateRegistrationReResolvesWhenApplied() throws {
        let db = try StoreDatabase()
        let env = F.envelope(installation: F.installation(1))
        _ = try db.write(F.sends([F.send(10, notification: 1, at: 3, token: "late")]))
        _ = try EventWriter().write(
            [F.telemetry(env, [F.event(1, at: 2, F.token("late"))])], on: db.connection, deferDerived: true)
        func resolution() throws -> String {
            try db.value("select coalesce(installation_id::text, '') || ' ' || resolved_by from sends")
        }
        #expect(try resolution() == " unresolved")
        #expect(try db.count("installations") == 0)
        // The registration itself and its token are stored before the answer.
        #expect(try db.count("token_registrations") == 1 && db.count("push_tokens") == 1)
        #expect(try EventWriter().applyDerived(on: db.connection) == 1)
        #expect(try resolution() == "\(F.installation(1).uuidString.lowercased()) token")
        #expect(try db.count("installations") == 1 && db.count("derived_inputs") == 0)
        #expect(try EventWriter().applyDerived(on: db.connection) == 0)
    }

    /// A writer never waits for a rollup pass that holds the queue: its application returns at
    /// once, and what waits is applied by the next one.
    @Test func aWritersApplicationDoesNotWaitForAPassHoldingTheQueue() throws {
        let db = try StoreDatabase()
        try Self.deferredSnapshot(on: db)
        let pass = try Connection.connect(url: db.url)
        try pass.executeScript("begin; select pg_advisory_xact_lock(hashtext('pushledger_apply_derived_inputs'))")
        // A wait would run into the timeout and throw.
        try db.connection.executeScript("set statement_timeout = '3s'")
        #expect(try EventWriter().applyDerived(on: db.connection) == 0)
        #expect(try EventWriter().wentIdle(on: db.connection) == 0)
        #expect(try db.count("derived_inputs") == 1)
        try pass.executeScript("commit")
        #expect(try EventWriter().applyDerived(on: db.connection) == 1)
        #expect(try db.count("installations") == 1 && db.count("derived_inputs") == 0)
    }

    /// A batch of one settings snapshot of installation 1, its derived state deferred.
    static func deferredSnapshot(on db: StoreDatabase, dryRun: Bool = false) throws {
        let snapshot = F.event(1, at: 2, F.androidSettings(enabled: true))
        _ = try EventWriter().write(
            [F.telemetry(F.envelope(installation: F.installation(1)), [snapshot])], on: db.connection, dryRun: dryRun,
            deferDerived: true)
    }

    /// An erasure applies what waits first: a queued batch never brings an erased installation back.
    @Test func anErasureAppliesWhatWaitsFirst() throws {
        let db = try StoreDatabase()
        try Self.deferredSnapshot(on: db)
        #expect(try db.count("derived_inputs") == 1)
        _ = try db.connection.query("select * from pushledger_erase(\(F.app), \(F.installation(1)), null)")
        #expect(try db.count("derived_inputs") == 0)
        #expect(try EventWriter().applyDerived(on: db.connection) == 0)
        #expect(try db.count("installations") == 0)
    }

    /// A dry run never queues: it stores nothing.
    @Test func aDryRunQueuesNothing() throws {
        let db = try StoreDatabase()
        try Self.deferredSnapshot(on: db, dryRun: true)
        #expect(try db.count("derived_inputs") == 0 && db.count("event_ids") == 0)
    }
}
