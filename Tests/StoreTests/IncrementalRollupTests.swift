import Foundation
import Postgres
import PushLedgerContract
import PushLedgerSupport
import Reports
import Store
import Testing

@testable import OutcomeEngine

/// The incremental refresh is exact: random sequences of ingest through the writer (late
/// receipts and opens, late snapshots and channel states, re-registered tokens, back-filled
/// invalidating results, duplicate batches, future-dated events, whole days marked dirty,
/// erasures, time passing the confirmation window; sends with collapse ids and expiries, and late
/// telemetry of any type changing the causes of earlier unconfirmed sends; for the prompt cohorts late exposures and
/// prompts, snapshots a week after a grant, installations changing platform and first_seen_at)
/// with a refresh after each step leave every rollup table, and the rows they group, equal to a
/// rebuild from scratch as of the same time.
/// PUSHLEDGER_ROLLUP_SEED=n replays one seed.
@Suite struct IncrementalRollupTests {
    typealias F = Fixture

    /// Every rollup table as text, one sorted row a line, without refresh times and as_of.
    static let tables: [(name: String, columns: String)] = [
        (
            "send_rollups_daily",
            """
            app_id, day, platform, channel, app_version, campaign, provider, sends, accepted, rejected, opened, \
            received, pending, blocked_app, blocked_channel, unattributed, unconfirmed, token_invalid, \
            to_invalid_token, unattributed_uninstrumented, os_version, sdk_int, standby_bucket, \
            background_restricted, ignoring_battery_optimizations, low_power_mode, superseded, app_stopped, \
            expired, device_inactive, unexplained, superseded_uninstrumented, app_stopped_uninstrumented, \
            expired_uninstrumented, device_inactive_uninstrumented, unexplained_uninstrumented, latency_lt_10s, \
            latency_lt_1m, latency_lt_10m, latency_lt_1h, latency_lt_6h, latency_lt_24h, latency_ge_24h
            """
        ),
        ("send_rejections_daily", "app_id, day, platform, provider, reason_class, reason, status, rejected"),
        ("instrumented_slices_daily", "app_id, day, platform, app_version"),
        ("open_landings_daily", "app_id, day, channel, campaign, opens, landed_reported, misrouted"),
        (
            "prompt_cohorts_daily",
            """
            app_id, experiment, day, cohort, platform, installs, prompted, granted, provisional, reached, \
            granted_without_prompt, retained_eligible, retained, hours_to_prompt
            """
        ),
        ("prompt_cohort_members", "*"),
        ("send_outcomes", "*"),
        ("open_landing_notifications", "*"),
    ]

    static func contents(_ connection: Connection) throws -> [String: String] {
        var result: [String: String] = [:]
        for table in tables {
            result[table.name] = try connection.query(
                """
                select coalesce(string_agg(t::text, E'\\n' order by t::text), '') as rows
                  from (select \(unsafeRaw: table.columns) from \(identifier: table.name)) t
                """)[0].decode("rows")
        }
        return result
    }

    /// The refresh `pushledger rollup` runs; a failure is recorded with its database detail.
    /// `secondConnection`: the URL of the database for a second connection that classifies most of
    /// the whole days.
    static func refresh(
        _ connection: Connection, asOf: Date, full: Bool = false, secondConnection url: String? = nil
    ) throws -> ReportRollups.Summary {
        let second = url.map { url in SecondConnection { try Connection.connect(url: url) } }
        do {
            return try ReportRollups.refresh(connection: connection, asOf: asOf, full: full, secondConnection: second)
        } catch {
            Issue.record("\(error.debugDescription)")
            throw error
        }
    }

    /// Every rollup table after the refresh as of `asOf` equals a rebuild as of the same time.
    static func expectEqualToRebuild(_ db: StoreDatabase, asOf: Date, _ context: String) throws {
        let incremental = try contents(db.connection)
        // The rebuild's pass inside one transaction that is rolled back (ReportRollups
        // commits its own), so the next step goes on from the incremental state.
        try db.connection.execute("begin")
        _ = try db.connection.query("select * from pushledger_rollup_pass(\(asOf), '24 hours'::interval, true)")
        let rebuilt = try contents(db.connection)
        try db.connection.execute("rollback")
        for table in tables {
            let (mine, theirs) = (
                Set((incremental[table.name] ?? "").split(separator: "\n")),
                Set((rebuilt[table.name] ?? "").split(separator: "\n"))
            )
            #expect(
                mine.symmetricDifference(theirs).isEmpty,
                """
                \(context), as of \(asOf): \(table.name) differs from a rebuild; only incremental: \
                \(mine.subtracting(theirs).sorted()); only rebuilt: \(theirs.subtracting(mine).sorted())
                """
            )
        }
    }

    /// Whether the session's refreshes send days with many re-judged sends through the whole-day
    /// engine from one such send on (`pushledger.whole_day_min_sends`), or from the default.
    static func wholeDays(_ always: Bool, on connection: Connection) throws {
        try connection.execute(
            always ? "set pushledger.whole_day_min_sends = 1" : "reset pushledger.whole_day_min_sends")
    }

    static var seeds: [UInt64] {
        if let text = ProcessInfo.processInfo.environment["PUSHLEDGER_ROLLUP_SEED"], let seed = UInt64(text) {
            return [seed]
        }
        return [1, 2, 3, 4]
    }

    @Test(arguments: seeds) func incrementalRefreshesEqualARebuild(seed: UInt64) throws {
        print("IncrementalRollupTests seed \(seed) (replay: PUSHLEDGER_ROLLUP_SEED=\(seed))")
        let db = try StoreDatabase()
        var world = RandomIngest(seed: seed)
        var hour = -60.0
        var refreshes = 0
        var reclassified = 0
        var promptMoves = 0
        var elsewhere = 0
        var causesSeen: Set<String> = []
        for step in 0..<14 {
            for _ in 0..<world.int(2...5) {
                let units = world.units(at: hour)
                for unit in units { _ = try db.write(unit) }
            }
            if world.chance(0.15) {
                try db.connection.execute(
                    """
                    select pushledger_mark_rollups_dirty(\(F.app), \(F.time(hour - 30))::date, \
                    \(F.time(hour - 6))::date)
                    """
                )
            }
            if world.chance(0.1) {
                let victim = world.pick(world.installations)
                _ = try db.connection.query("select * from pushledger_erase(\(F.app), \(victim.id), null)")
            }
            let asOf = F.time(hour)
            // Every other refresh sends each day with a third of its sends judged again through
            // the whole-day engine (pushledger_promote_busy_days), whatever their number, and
            // classifies most of those days on a second connection.
            try Self.wholeDays(step % 2 == 1, on: db.connection)
            let summary = try Self.refresh(db.connection, asOf: asOf, secondConnection: step % 2 == 1 ? db.url : nil)
            #expect(summary.secondConnectionFailure == nil)
            elsewhere += summary.secondConnectionSends
            refreshes += 1
            if !summary.full {
                reclassified += summary.reclassifiedSends
                promptMoves += summary.promptCohortDays
            }
            try Self.expectEqualToRebuild(db, asOf: asOf, "seed \(seed), step \(step)")
            let seen: String = try db.value(
                "select coalesce(string_agg(distinct coalesce(cause, latency_bucket), ','), '') from send_outcomes")
            causesSeen.formUnion(seen.split(separator: ",").map(String.init))
            hour += world.chance(0.3) ? Double(world.int(20...30)) : Double(world.int(1...6))
        }
        let sends: Int = try db.value("select count(*)::int from send_outcomes")
        #expect(refreshes == 14 && sends > 0 && reclassified > 0)
        #expect(elsewhere > 0, "no whole day was classified on the second connection")
        #expect(causesSeen.count >= 2, "\(causesSeen.sorted())")
        let members: Int = try db.value(
            "select count(*)::int from prompt_cohort_members where first_prompt_at is not null")
        let days: Int = try db.value("select count(distinct (experiment, day))::int from prompt_cohorts_daily")
        #expect(members > 0 && days > 1 && promptMoves > 0)
    }

    /// Causes over a fleet whose every slice reports receipts (so unconfirmed sends are many):
    /// sends with collapse ids and expiries, re-sent notifications, telemetry of every type dated
    /// late, now or ahead of the clock (first signs of life moving earlier), force-stops,
    /// erasures, and time passing.
    @Test(arguments: seeds) func causeRefreshesEqualARebuild(seed: UInt64) throws {
        print("IncrementalRollupTests causes seed \(seed) (replay: PUSHLEDGER_ROLLUP_SEED=\(seed))")
        let db = try StoreDatabase()
        var world = RandomIngest(seed: seed)
        var hour = -60.0
        var seen: Set<String> = []
        for step in 0..<14 {
            for _ in 0..<world.int(3...6) {
                for unit in world.causeUnits(at: hour) { _ = try db.write(unit) }
            }
            if world.chance(0.08) {
                _ = try db.connection.query(
                    "select * from pushledger_erase(\(F.app), \(world.pick(world.installations).id), null)")
            }
            try Self.wholeDays(step % 2 == 0, on: db.connection)
            _ = try Self.refresh(db.connection, asOf: F.time(hour), secondConnection: step % 2 == 0 ? db.url : nil)
            try Self.expectEqualToRebuild(db, asOf: F.time(hour), "causes seed \(seed), step \(step)")
            let held: String = try db.value(
                "select coalesce(string_agg(distinct coalesce(cause, latency_bucket), ','), '') from send_outcomes")
            seen.formUnion(held.split(separator: ",").map(String.init))
            hour += world.chance(0.3) ? Double(world.int(20...30)) : Double(world.int(1...6))
        }
        print("IncrementalRollupTests causes seed \(seed): causes and latency buckets held \(seen.sorted())")
        let causes = seen.filter { !$0.hasPrefix("lt_") && !$0.hasPrefix("ge_") }
        #expect(causes.count >= 3 && seen.count - causes.count >= 3, "\(seen.sorted())")
    }

    /// Four units of `world` every 4 hours from `start` through `end` into `db`: days busy enough
    /// to be recomputed whole.
    static func ingestBusyHours(
        _ world: inout RandomIngest, into db: StoreDatabase, from start: Double, through end: Double
    ) throws {
        for hour in stride(from: start, through: end, by: 4) {
            for _ in 0..<4 { for unit in world.units(at: hour) { _ = try db.write(unit) } }
        }
    }

    /// A second connection that cannot take its whole days (here: it cannot connect) leaves them
    /// to the first: the same rows, and the reason for the logs.
    @Test func aFailedSecondConnectionLeavesItsDaysToTheFirst() throws {
        let db = try StoreDatabase()
        var world = RandomIngest(seed: 6)
        try Self.ingestBusyHours(&world, into: db, from: -80, through: 0)
        _ = try Self.refresh(db.connection, asOf: F.time(-100), full: true)
        try Self.wholeDays(true, on: db.connection)
        let summary = try ReportRollups.refresh(
            connection: db.connection, asOf: F.time(1),
            secondConnection: SecondConnection {
                try Connection.connect(url: "postgresql:///nowhere?host=/nonexistent")
            })
        #expect(summary.secondConnectionSends == 0)
        #expect(summary.secondConnectionFailure?.contains("cannot connect") == true, "\(summary)")
        #expect(summary.days.count >= 2 && summary.reclassifiedSends > 0, "\(summary)")
        try Self.expectEqualToRebuild(db, asOf: F.time(1), "a failed second connection")
    }

    /// A second connection that broke fails the part of the pass it had (the pass's connection
    /// classifies its days, with the same result) and is opened again for the next pass.
    @Test func aBrokenSecondConnectionIsOpenedAgain() throws {
        let db = try StoreDatabase()
        var world = RandomIngest(seed: 7)
        try Self.ingestBusyHours(&world, into: db, from: -80, through: -40)
        _ = try Self.refresh(db.connection, asOf: F.time(-100), full: true)
        try Self.wholeDays(true, on: db.connection)
        let url = db.url
        let second = SecondConnection { try Connection.connect(url: url) }
        try second.open()
        let ended: Int = try db.value(
            """
            select count(pg_terminate_backend(pid))::int from pg_stat_activity
             where datname = current_database() and application_name = \(SecondConnection.applicationName)
            """)
        #expect(ended == 1)
        let broken = try ReportRollups.refresh(connection: db.connection, asOf: F.time(-30), secondConnection: second)
        #expect(broken.secondConnectionSends == 0 && broken.reclassifiedSends > 0, "\(broken)")
        #expect(broken.secondConnectionFailure != nil)
        try Self.expectEqualToRebuild(db, asOf: F.time(-30), "a broken second connection")
        try Self.ingestBusyHours(&world, into: db, from: -20, through: 20)
        let again = try ReportRollups.refresh(connection: db.connection, asOf: F.time(30), secondConnection: second)
        #expect(again.secondConnectionFailure == nil && again.secondConnectionSends > 0, "\(again)")
        try Self.expectEqualToRebuild(db, asOf: F.time(30), "the second connection opened again")
    }

    /// A refresh sends a day through the whole-day engine when a third of its sends or more are
    /// judged on every fact and there are at least `pushledger.whole_day_min_sends` of them; a
    /// day already recomputed whole is not named twice.
    @Test func busyDaysAreRecomputedWhole() throws {
        let db = try StoreDatabase()
        var world = RandomIngest(seed: 5)
        for _ in 0..<8 { for unit in world.units(at: -30) { _ = try db.write(unit) } }
        let days: [(day: String, sends: Int)] = try db.connection.query(
            "select pushledger_day(sent_at)::text as day, count(*)::int as n from sends group by 1 order by 1"
        ).map { (try $0.decode("day"), try $0.decode("n")) }
        let busy = try #require(days.first { $0.sends >= 3 })
        func promoted(judged: Int, scope: Int = 2, minimum: Int, dirty: Bool = false) throws -> [String] {
            try db.connection.execute("begin")
            defer { _ = try? db.connection.execute("rollback") }
            _ = try db.connection.query("select set_config('pushledger.whole_day_min_sends', \(String(minimum)), true)")
            try db.connection.execute("select pushledger_rollup_work_tables()")
            try db.connection.execute(
                """
                insert into rollup_send_set select app_id, sent_at, event_id, \(scope) from sends \
                where pushledger_day(sent_at)::text = \(busy.day) order by sent_at, event_id limit \(judged)
                """)
            if dirty { try db.connection.execute("insert into rollup_days values (\(F.app), \(busy.day)::date)") }
            try db.connection.execute("select pushledger_promote_busy_days()")
            return try db.connection.query("select day::text as day from rollup_days").map { try $0.decode("day") }
        }
        let third = (busy.sends + 2) / 3
        #expect(try promoted(judged: third, minimum: 1) == [busy.day])
        #expect(try promoted(judged: third - 1, minimum: 1) == [], "fewer than a third of \(busy.sends)")
        #expect(try promoted(judged: busy.sends, minimum: busy.sends + 1) == [], "fewer than the minimum")
        #expect(try promoted(judged: busy.sends, scope: 1, minimum: 1) == [], "receipts only: re-judged cheaply")
        #expect(try promoted(judged: busy.sends, minimum: 1, dirty: true) == [busy.day])
        // The default minimum keeps a test fleet's days on their look-ups.
        try db.connection.execute("begin")
        try db.connection.execute("select pushledger_rollup_work_tables()")
        try db.connection.execute("insert into rollup_send_set select app_id, sent_at, event_id, 2 from sends")
        try db.connection.execute("select pushledger_promote_busy_days()")
        let none: Int = try db.value("select count(*)::int from rollup_days")
        try db.connection.execute("rollback")
        #expect(none == 0)
    }

    /// On two connections the second connection's days are chosen right after the queue is
    /// taken, before the sends it names are looked up: the days marked dirty and the days its
    /// inputs of sends make busy (estimated against what the rollups counted). The refresh's next
    /// step then recomputes them whole with the others.
    @Test func theSecondConnectionsDaysAreChosenFromTheTakenQueue() throws {
        let db = try StoreDatabase()
        var world = RandomIngest(seed: 5)
        for unit in world.units(at: -60) { _ = try db.write(unit) }
        _ = try Self.refresh(db.connection, asOf: F.time(-50))
        for _ in 0..<8 { for unit in world.units(at: -30) { _ = try db.write(unit) } }
        func days(_ sql: SQL) throws -> [String] {
            try db.connection.query(sql).map { try $0.decode("day") }
        }
        func chosen(minimum: Int, dirty: String? = nil) throws -> (second: [String], whole: [String]) {
            try db.connection.execute("begin")
            defer { _ = try? db.connection.execute("rollback") }
            _ = try db.connection.query("select set_config('pushledger.whole_day_min_sends', \(String(minimum)), true)")
            if let dirty {
                try db.connection.execute(
                    "select pushledger_mark_rollups_dirty(\(F.app), \(dirty)::date, \(dirty)::date)")
            }
            #expect(try db.value("select pushledger_refresh_rollups_begin(\(F.time(0)), '24 hours')", as: Bool.self))
            _ = try db.connection.query("select pushledger_second_connection_runs()::text as runs")
            let second = try days("select day::text as day from rollup_second_days order by 1")
            try db.connection.execute("select pushledger_refresh_rollups_affected(\(F.time(0)), '24 hours')")
            return (second, try days("select distinct day::text as day from rollup_days order by 1"))
        }
        let busy = try chosen(minimum: 1)
        #expect(!busy.second.isEmpty, "no busy day estimated from the queue")
        #expect(Set(busy.second).isSubset(of: busy.whole), "\(busy)")
        #expect(try chosen(minimum: 1_000_000) == ([], []))
        // The day the first refresh counted: its estimate holds sends.
        let dirtyDay: String = try db.value("select min(pushledger_day(sent_at))::text from sends")
        let dirty = try chosen(minimum: 1_000_000, dirty: dirtyDay)
        #expect(dirty.second == [dirtyDay], "\(dirty)")
        #expect(dirty.whole == dirty.second)
    }

    /// Rows in `rollup_second_rows` that are not the pass's (a pass rolled back after its second
    /// connection committed, or a second connection committed and then failed) are never read:
    /// neither by a pass without a second connection's days nor by one whose second connection
    /// failed, which classifies that connection's days itself. They wait for the next pass on
    /// two connections, which deletes them first.
    @Test func rowsTheSecondConnectionLeftAreNotThePasses() throws {
        let db = try StoreDatabase()
        try Self.wholeDays(true, on: db.connection)
        var world = RandomIngest(seed: 5)
        for unit in world.units(at: -60) { _ = try db.write(unit) }
        _ = try Self.refresh(db.connection, asOf: F.time(-50))
        // Rows of sends that do not exist: read as the pass's, they would be written.
        func leaveRows() throws {
            try db.connection.execute("insert into rollup_second_rows select * from send_outcomes")
            try db.connection.execute("update rollup_second_rows set event_id = gen_random_uuid()")
            #expect(try db.value("select count(*)::int from rollup_second_rows", as: Int.self) > 0)
        }
        for _ in 0..<4 { for unit in world.units(at: -40) { _ = try db.write(unit) } }
        _ = try Self.refresh(db.connection, asOf: F.time(-35))
        try leaveRows()
        for _ in 0..<4 { for unit in world.units(at: -30) { _ = try db.write(unit) } }
        _ = try Self.refresh(db.connection, asOf: F.time(-20))
        try Self.expectEqualToRebuild(db, asOf: F.time(-20), "rows left over, one connection")
        try db.connection.execute("delete from rollup_second_rows")

        for _ in 0..<4 { for unit in world.units(at: -10) { _ = try db.write(unit) } }
        let asOf = F.time(0)
        try db.connection.execute("begin")
        _ = try db.connection.query("select * from pushledger_rollup_pass_start(\(asOf), '24 hours', false)")
        let runs: String? = try db.connection.query("select pushledger_second_connection_runs()::text as runs")[0]
            .decode("runs")
        #expect(runs != nil, "no days for a second connection")
        // What a second connection that then failed committed.
        try leaveRows()
        _ = try db.connection.query("select pushledger_rollup_pass_prompts(\(asOf), false)")
        try db.connection.execute("select pushledger_refresh_rollups_affected(\(asOf), '24 hours')")
        try db.connection.execute("select pushledger_classify_whole_days(\(asOf), '24 hours', false)")
        try db.connection.execute("select pushledger_classify_whole_days(\(asOf), '24 hours', true)")
        _ = try db.connection.query("select * from pushledger_rollup_pass_end(\(asOf), '24 hours', 0, true)")
        try db.connection.execute("commit")
        try Self.expectEqualToRebuild(db, asOf: asOf, "a second connection's rows after it failed")
        #expect(try db.value("select count(*)::int from rollup_second_rows", as: Int.self) > 0)
    }

    /// What the inputs affect is looked up outside the days recomputed whole: every send of such a
    /// day is judged again anyway, so a fleet arriving at once is not looked up send by send.
    @Test func theLookUpsOfAffectedSendsSkipTheDaysRecomputedWhole() throws {
        let db = try StoreDatabase()
        var world = RandomIngest(seed: 5)
        for _ in 0..<8 { for unit in world.units(at: -30) { _ = try db.write(unit) } }
        func affected(wholeDays: Bool) throws -> Int {
            try db.connection.execute("begin")
            defer { _ = try? db.connection.execute("rollback") }
            try db.connection.execute("select pushledger_rollup_work_tables()")
            try db.connection.execute("select pushledger_take_rollup_inputs('infinity')")
            if wholeDays {
                try db.connection.execute(
                    "insert into rollup_days select distinct app_id, pushledger_day(sent_at) from sends")
            }
            try db.connection.execute("select pushledger_affected_sends('infinity', '24 hours')")
            return try db.value("select count(*)::int from rollup_send_set")
        }
        let looked = try affected(wholeDays: false)
        #expect(looked > 0)
        #expect(try affected(wholeDays: true) == 0, "\(looked) sends looked up on days recomputed whole")
    }

    /// Stored rows queued by hand (`pushledger_queue_stored`, for repairs and fixtures) queue
    /// the keys the writer queued for them, kind by kind; a table the rollups do not read is
    /// refused by name, and queues nothing.
    @Test func rowsQueuedByHandMatchWhatTheWriterQueued() throws {
        let db = try StoreDatabase()
        var world = RandomIngest(seed: 7)
        for step in 0..<60 { for unit in world.units(at: Double(step) - 70) { _ = try db.write(unit) } }
        for unit in world.causeUnits(at: -8) { _ = try db.write(unit) }
        func queued() throws -> [String: String] {
            let rows = try db.connection.query(
                """
                select kind, string_agg(distinct key::text, ',' order by key::text) as keys
                  from (select r.kind, k.key from rollup_inputs r cross join lateral unnest(r.keys) k(key)
                        union all
                        select 'prompt member', installation_id from prompt_rollup_dirty_installations) q
                 group by kind
                """)
            return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.decode("kind"), try $0.decode("keys")) })
        }
        let byWriter = try queued()
        for kind in ["send", "installation", "life", "snapshot", "receipt", "registration", "prompt member"] {
            #expect(byWriter[kind] != nil, "the fleet wrote no \(kind); queued: \(byWriter.keys.sorted())")
        }
        func clear() throws {
            try db.connection.execute("delete from rollup_inputs")
            try db.connection.execute("delete from prompt_rollup_dirty_installations")
        }
        try clear()
        let tables = [
            "sends", "installations", "settings_snapshots", "permission_prompts", "experiment_exposures",
            "notification_receipts", "notification_opens", "token_registrations",
        ].joined(separator: ",")
        _ = try db.connection.query("select pushledger_queue_stored(\(F.app), string_to_array(\(tables), ','))")
        let byHand = try queued()
        for kind in Set(byHand.keys).union(byWriter.keys).sorted() where kind != "prompt member" {
            #expect(byHand[kind] == byWriter[kind], "\(kind)")
        }
        // Every member the writer marked (by telemetry, or by its installation's first_seen_at or
        // platform changing), and by hand every installation's, which a repair may have changed.
        func members(_ queue: [String: String]) -> Set<Substring> {
            Set((queue["prompt member"] ?? "").split(separator: ","))
        }
        #expect(members(byWriter).isSubset(of: members(byHand)))
        let installations: Int = try db.value("select count(*)::int from installations")
        #expect(members(byHand).count == installations)

        try clear()
        let refused = #expect(throws: PostgresError.self) {
            _ = try db.connection.query("select pushledger_queue_stored(\(F.app), array['sends', 'channel_states'])")
        }
        #expect(refused?.message.contains("channel_states is not a table the rollups read") == true)
        #expect(try queued().isEmpty)
    }

    /// A late telemetry event changes the causes of the installation's earlier sends, and a late
    /// send of the notification its first sign of life received makes one superseded: each
    /// refresh follows, and equals a rebuild.
    @Test func lateTelemetryChangesEarlierCauses() throws {
        let db = try StoreDatabase()
        let phone = F.installation(1)
        let other = F.installation(2)
        let envelope = F.envelope(installation: phone)
        // Displayable, instrumented (another installation's receipt that day), and two sends.
        _ = try db.write(
            F.telemetry(envelope, [F.event(1, at: -40, F.androidSettings(enabled: true))], receivedAt: F.time(-40)))
        _ = try db.write(
            F.telemetry(F.envelope(installation: other), [F.event(2, at: -30, F.received(99))], receivedAt: F.time(-30))
        )
        var first = F.send(10, notification: 1, at: -35, installation: phone, provider: .fcm)
        first.collapseID = "order-7"
        first.expiresAt = F.time(-34)
        _ = try db.write(F.sends([first], receivedAt: F.time(-35)))
        func cause() throws -> String? {
            try db.value("select cause from send_outcomes where event_id = \(F.event(10))")
        }
        _ = try Self.refresh(db.connection, asOf: F.time(0))
        #expect(try cause() == "device_inactive")
        // The phone comes back after the expiry: expired.
        _ = try db.write(F.telemetry(envelope, [F.event(3, at: -20, F.token("tok-a"))], receivedAt: F.time(1)))
        _ = try Self.refresh(db.connection, asOf: F.time(1))
        #expect(try cause() == "expired")
        try Self.expectEqualToRebuild(db, asOf: F.time(1), "a late sign of life")
        // Earlier still, a snapshot after a force-stop: app_stopped.
        var stopped = SettingsSnapshot(notificationsEnabled: true)
        stopped.forceStoppedBeforeStart = true
        _ = try db.write(
            F.telemetry(envelope, [F.event(4, at: -30, .notificationSettings(stopped))], receivedAt: F.time(2)))
        _ = try Self.refresh(db.connection, asOf: F.time(2))
        #expect(try cause() == "app_stopped")
        try Self.expectEqualToRebuild(db, asOf: F.time(2), "a late force-stop")
        // Earlier again, a receipt of another notification; then its send with the same collapse id.
        _ = try db.write(F.telemetry(envelope, [F.event(5, at: -33, F.received(2))], receivedAt: F.time(3)))
        _ = try Self.refresh(db.connection, asOf: F.time(3))
        #expect(try cause() == "expired")
        var second = F.send(11, notification: 2, at: -34.5, installation: phone, provider: .fcm)
        second.collapseID = "order-7"
        _ = try db.write(F.sends([second], receivedAt: F.time(4)))
        _ = try Self.refresh(db.connection, asOf: F.time(4))
        #expect(try cause() == "superseded")
        try Self.expectEqualToRebuild(db, asOf: F.time(4), "a late superseding send")
        // The superseding send's token erased: the receipt stays, nothing replaces the send.
        _ = try db.connection.query("select * from pushledger_erase(\(F.app), null, 'tok-a')")
        _ = try Self.refresh(db.connection, asOf: F.time(5))
        try Self.expectEqualToRebuild(db, asOf: F.time(5), "an erased superseding send")
    }

    /// The prompt cohorts over a larger fleet, where a step marks few of its installations:
    /// late and future-dated exposures, prompts and snapshots, grants more than a week old,
    /// changes of platform and first_seen_at, erasures, and long stretches of time.
    @Test(arguments: seeds) func promptCohortRefreshesEqualARebuild(seed: UInt64) throws {
        print("IncrementalRollupTests prompt cohorts seed \(seed) (replay: PUSHLEDGER_ROLLUP_SEED=\(seed))")
        let db = try StoreDatabase()
        var world = RandomIngest(seed: seed, fleet: 16)
        var hour = -60.0
        var (moved, retained) = (0, 0)
        for step in 0..<24 {
            for _ in 0..<world.int(2...4) { _ = try db.write(world.promptUnit(at: hour)) }
            if world.chance(0.1) {
                _ = try db.connection.query(
                    "select * from pushledger_erase(\(F.app), \(world.pick(world.installations).id), null)")
            }
            let summary = try Self.refresh(db.connection, asOf: F.time(hour))
            if step > 0 { moved += summary.promptCohortDays }
            try Self.expectEqualToRebuild(db, asOf: F.time(hour), "prompt cohorts seed \(seed), step \(step)")
            retained += try db.value("select count(*)::int from prompt_cohort_members where retained_eligible")
            hour += world.chance(0.3) ? Double(world.int(30...60)) : Double(world.int(1...5))
        }
        let platforms: Int = try db.value("select count(distinct platform)::int from prompt_cohort_members")
        #expect(moved > 0 && retained > 0 && platforms == 2)
    }
}

/// A small fleet and its random traffic, every choice drawn from one seeded generator.
struct RandomIngest {
    typealias F = Fixture
    struct Installation {
        var id: UUID
        var platform: Platform
        var version: String
        var token: String
    }

    var random: SplitMix64
    /// The draws of collapse ids, expiries and device state, apart: the other draws of a seed stay
    /// what they were without them.
    var causeRandom: SplitMix64
    var installations: [Installation] = []
    var nextEvent = 100_000
    var notifications: [Int] = []
    var nextNotification = 1
    var sent: [IngestUnit] = []
    var primed = false
    /// Every attempt generated: installation index, notification, hour.
    var attempts: [(installation: Int, notification: Int, at: Double)] = []

    init(seed: UInt64, fleet: Int = 6) {
        random = SplitMix64(seed: seed)
        causeRandom = SplitMix64(seed: seed &+ 0x5eed)
        for n in 1...fleet {
            let platform: Platform = n % 3 == 0 ? .ios : .android
            installations.append(
                Installation(
                    id: F.installation(500 + n), platform: platform, version: "5.\(n % 2).0", token: "tok-\(n)-0"))
        }
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &random) < p }
    mutating func pick<T>(_ values: [T]) -> T { values[int(0...(values.count - 1))] }
    mutating func causePick<T>(_ values: [T]) -> T {
        values[Int.random(in: 0...(values.count - 1), using: &causeRandom)]
    }
    mutating func event() -> Int {
        nextEvent += 1
        return nextEvent
    }

    /// One or two ingest units of a random kind, received at `hour`.
    mutating func units(at hour: Double) -> [IngestUnit] {
        let receivedAt = F.time(hour)
        if !sent.isEmpty, chance(0.08) { return [pick(sent)] }  // a retried batch
        let unit: IngestUnit
        switch int(0...9) {
        case 0...2: unit = sends(at: hour, receivedAt: receivedAt)
        case 3...5: unit = confirmations(at: hour, receivedAt: receivedAt)
        case 6: unit = snapshot(at: hour, receivedAt: receivedAt)
        case 7:
            unit =
                chance(0.5) ? registration(at: hour, receivedAt: receivedAt) : prompts(at: hour, receivedAt: receivedAt)
        case 8: unit = backFilledInvalidation(at: hour, receivedAt: receivedAt)
        default:
            unit =
                chance(0.2)
                ? platformChange(at: hour, receivedAt: receivedAt) : prompts(at: hour, receivedAt: receivedAt)
        }
        sent.append(unit)
        return [unit]
    }

    /// The traffic of the cause test: sends, then signs of life of every type, and receipts of
    /// witness installations instrumenting every slice around `hour`.
    mutating func causeUnits(at hour: Double) -> [IngestUnit] {
        let receivedAt = F.time(hour)
        var units: [IngestUnit] = []
        if !primed {
            // Every installation can display from the start.
            primed = true
            for i in installations.indices {
                let payload: TelemetryPayload =
                    installations[i].platform == .ios
                    ? .notificationSettings(SettingsSnapshot(authorizationStatus: .authorized))
                    : F.androidSettings(enabled: true)
                units.append(
                    F.telemetry(envelope(i), [F.event(event(), at: hour - 100, payload)], receivedAt: receivedAt))
            }
        }
        switch int(0...9) {
        case 0...2: units.append(sends(at: hour, receivedAt: receivedAt))
        case 3...5 where !attempts.isEmpty:
            // Delivered to its own installation, seconds to a day and more after it was sent.
            let attempt = pick(attempts)
            let delay = pick([0.001, 0.01, 0.1, 0.5, 2.0, 8.0, 30.0])
            let payload = chance(0.7) ? F.received(attempt.notification) : F.opened(attempt.notification)
            units.append(
                F.telemetry(
                    envelope(attempt.installation), [F.event(event(), at: attempt.at + delay, payload)],
                    receivedAt: receivedAt))
        case 3...5: units.append(confirmations(at: hour, receivedAt: receivedAt))
        case 6: units.append(snapshot(at: hour, receivedAt: receivedAt))
        case 7: units.append(registration(at: hour, receivedAt: receivedAt))
        default: units.append(prompts(at: hour, receivedAt: receivedAt))
        }
        for platform in [Platform.ios, .android] {
            for version in ["5.0.0", "5.1.0"] {
                let witness = F.envelope(installation: F.installation(900), platform: platform, appVersion: version)
                let events = [-30.0, -20, -10, 0].map { F.event(event(), at: hour + $0, F.received(999_999)) }
                units.append(F.telemetry(witness, events, receivedAt: receivedAt))
            }
        }
        return units
    }

    /// One unit of the telemetry prompt cohorts read, received at `hour`.
    mutating func promptUnit(at hour: Double) -> IngestUnit {
        let receivedAt = F.time(hour)
        switch int(0...19) {
        case 0...8: return prompts(at: hour, receivedAt: receivedAt)
        case 9...16: return snapshot(at: hour, receivedAt: receivedAt)
        default: return platformChange(at: hour, receivedAt: receivedAt)
        }
    }

    mutating func envelope(_ i: Int) -> TelemetryEnvelope {
        let installation = installations[i]
        return F.envelope(
            installation: installation.id, platform: installation.platform, appVersion: installation.version)
    }

    mutating func sends(at hour: Double, receivedAt: Date) -> IngestUnit {
        var results: [SendResult] = []
        for _ in 0..<int(1...6) {
            let i = int(0...(installations.count - 1))
            let installation = installations[i]
            let notification = chance(0.15) && !notifications.isEmpty ? pick(notifications) : nextNotification
            if notification == nextNotification {
                notifications.append(notification)
                nextNotification += 1
            }
            // Mostly now; some late (back-filled), a few ahead of the clock.
            let at = hour - (chance(0.2) ? Double(int(2...40)) : Double(int(0...2))) + (chance(0.07) ? 3 : 0)
            let (status, reason): (Int, String?) = pick([
                (200, nil), (200, nil), (200, nil), (200, nil), (503, nil), (429, nil),
                (
                    installation.platform == .ios ? 410 : 404,
                    installation.platform == .ios ? "Unregistered" : "UNREGISTERED"
                ),
            ])
            var send = F.send(
                event(), notification: notification, at: at, token: installation.token,
                installation: chance(0.7) ? installation.id : nil,
                provider: installation.platform == .ios ? .apns : .fcm, channel: pick(["orders", "promo"]),
                campaign: pick(["order_update", "sale", nil]), status: status, reason: reason)
            // Collapse ids and expiries on a share: superseded and expired sends.
            send.collapseID = causePick(["order-1", "order-2", nil, nil])
            send.expiresAt = causePick([nil, nil, 0.0, 1.0, 6.0]).map { F.time(at + $0) }
            results.append(send)
            attempts.append((i, notification, at))
        }
        return F.sends(results, receivedAt: receivedAt)
    }

    mutating func confirmations(at hour: Double, receivedAt: Date) -> IngestUnit {
        let i = int(0...(installations.count - 1))
        var events: [TelemetryEvent] = []
        for _ in 0..<int(1...4) where !notifications.isEmpty {
            let notification = pick(notifications)
            // Late receipts of earlier sends, and now and then one dated ahead of the clock.
            let at = hour - Double(int(0...30)) + (chance(0.08) ? 5 : 0)
            let payload =
                chance(0.6)
                ? F.received(notification, displayed: pick([nil, true, false]))
                : F.opened(notification, landed: pick([.target, .fallback, .rejected, nil]))
            events.append(F.event(event(), at: at, payload))
        }
        if events.isEmpty { return snapshot(at: hour, receivedAt: receivedAt) }
        if chance(0.2) { installations[i].version = "5.\(int(2...3)).0" }  // an upgrade: a new slice
        return F.telemetry(envelope(i), events, receivedAt: receivedAt)
    }

    /// A snapshot dated now, late (up to a week and more after a late grant) or a little ahead
    /// of the clock, with channel states on Android.
    mutating func snapshot(at hour: Double, receivedAt: Date) -> IngestUnit {
        let i = int(0...(installations.count - 1))
        let at = hour - (chance(0.4) ? Double(int(3...50)) : 0) + (chance(0.1) ? 4 : 0)
        var payload: TelemetryPayload =
            installations[i].platform == .ios
            ? .notificationSettings(SettingsSnapshot(authorizationStatus: pick([.authorized, .denied, .provisional])))
            : F.androidSettings(
                enabled: chance(0.75),
                channels: chance(0.5) ? [ChannelState(id: "promo", importance: pick([0, 3]))] : nil)
        // Device state: new slices, and force-stops (app_stopped).
        if case .notificationSettings(var settings) = payload {
            if installations[i].platform == .ios {
                settings.lowPowerMode = causePick([nil, true, false])
            } else {
                settings.standbyBucket = causePick([nil, .active, .rare])
                settings.forceStoppedBeforeStart = causePick([nil, nil, true, false])
            }
            payload = .notificationSettings(settings)
        }
        return F.telemetry(envelope(i), [F.event(event(), at: at, payload)], receivedAt: receivedAt)
    }

    /// The token registered again (sometimes a new one), possibly dated earlier.
    mutating func registration(at hour: Double, receivedAt: Date) -> IngestUnit {
        let i = int(0...(installations.count - 1))
        if chance(0.3) { installations[i].token = "tok-\(i + 1)-\(int(1...3))" }
        let installation = installations[i]
        let at = hour - Double(int(0...30))
        return F.telemetry(
            envelope(i),
            [
                F.event(
                    event(), at: at, F.token(installation.token, provider: installation.platform == .ios ? .apns : .fcm)
                )
            ],
            receivedAt: receivedAt)
    }

    /// An invalidating result dated well before later sends to the token.
    mutating func backFilledInvalidation(at hour: Double, receivedAt: Date) -> IngestUnit {
        let installation = pick(installations)
        let ios = installation.platform == .ios
        let result = F.send(
            event(), notification: nextNotification, at: hour - Double(int(10...45)), token: installation.token,
            installation: installation.id, provider: ios ? .apns : .fcm,
            status: ios ? 410 : 404, reason: ios ? "Unregistered" : "UNREGISTERED")
        notifications.append(nextNotification)
        nextNotification += 1
        return F.sends([result], receivedAt: receivedAt)
    }

    /// Exposures to one of two experiments and system prompts, together or alone: now, late (up
    /// to 200 hours, earlier than the installation was first seen, so a week after a grant
    /// passes within the run) or ahead of the clock.
    mutating func prompts(at hour: Double, receivedAt: Date) -> IngestUnit {
        let i = int(0...(installations.count - 1))
        let at = hour - (chance(0.5) ? Double(int(0...200)) : Double(int(0...20))) + (chance(0.1) ? 3 : 0)
        var events: [TelemetryEvent] = []
        if chance(0.7) {
            events.append(
                F.event(
                    event(), at: at,
                    .experimentExposure(
                        ExperimentExposure(
                            experiment: pick(["push_prompt_timing", "push_prompt_timing", "primer_copy"]),
                            variant: pick(["early", "late"])))))
        }
        if events.isEmpty || chance(0.7) {
            events.append(
                F.event(
                    event(), at: at + 0.5,
                    .permissionPrompt(
                        PermissionPrompt(
                            placement: pick(["first_screen", "after_order"]), prompt: .system,
                            result: pick([.granted, .granted, .denied, .provisional, .alreadyDetermined])))))
        }
        return F.telemetry(envelope(i), events, receivedAt: receivedAt)
    }

    /// A token registration, an event no prompt cohort reads, that changes only the
    /// installation's row: from its other platform dated now (the platform changes, and back with
    /// its next batch), or dated before it was first seen (first_seen_at moves earlier).
    mutating func platformChange(at hour: Double, receivedAt: Date) -> IngestUnit {
        let i = int(0...(installations.count - 1))
        let installation = installations[i]
        let early = chance(0.4)
        let platform: Platform = early ? installation.platform : (installation.platform == .ios ? .android : .ios)
        let envelope = F.envelope(installation: installation.id, platform: platform, appVersion: installation.version)
        let payload = F.token(installation.token, provider: platform == .ios ? .apns : .fcm)
        return F.telemetry(
            envelope, [F.event(event(), at: early ? hour - Double(int(200...300)) : hour, payload)],
            receivedAt: receivedAt)
    }
}
