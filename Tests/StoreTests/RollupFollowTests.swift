import Foundation
import Postgres
import PushLedgerSupport
import Reports
import Store
import TestSupport
import Testing

@testable import OutcomeEngine

/// `pushledger rollup --follow` run for real as a child process against real Postgres, with
/// ingest through the event writer at the same time: the rollups it leaves equal a rebuild (also
/// after it is killed mid-pass and started again), two followers never refresh at once, the lag
/// it reports is right, and it comes back by itself after Postgres restarts.
@Suite struct RollupFollowTests {
    static let leading = "rollup follower leading: refreshing"
    static let standingBy = "rollup follower standing by: another follower holds the lock"
    static let unreachable = "rollup follower cannot refresh (database unreachable or the pass failed), retrying"

    /// Polls `condition` every 50 ms for up to `timeout` seconds; whether it came true.
    static func eventually(timeout: Double = 30, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if try condition() { return true }
            usleep(50_000)
        } while Date() < deadline
        return try condition()
    }

    /// Waits until a pass that began after everything committed so far has committed: the
    /// follower has caught up with it.
    static func caughtUp(_ connection: Connection, timeout: Double = 30) throws -> Bool {
        let written: Date = try connection.query("select clock_timestamp() as t")[0].decode("t")
        return try eventually(timeout: timeout) {
            let started: Date? = try connection.query("select (select pass_started_at from rollup_refresh_state) as t")[
                0
            ].decode("t")
            return started.map { $0 > written } ?? false
        }
    }

    /// How long each pass the follower logged took (its `seconds` field).
    static func passSeconds(_ follower: FollowProcess) -> [Double] {
        follower.lines("rollup pass").compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("seconds=") }.flatMap { Double($0.dropFirst(8)) }
        }
    }

    /// Backends of the follower in the test's database, and how many wait on a lock.
    static func followerBackends(_ connection: Connection) throws -> (all: Int, waitingOnLock: Int) {
        let row = try connection.query(
            """
            select count(*)::int as all, (count(*) filter (where wait_event_type = 'Lock'))::int as waiting
              from pg_stat_activity where datname = current_database() and application_name = \
            \(RollupFollower.applicationName)
            """)[0]
        return (try row.decode("all"), try row.decode("waiting"))
    }

    @Test func followerBesideIngestEqualsARebuildAlsoWhenKilledMidPass() throws {
        let db = try StoreDatabase()
        var world = RandomIngest(seed: 32)
        var follower = try FollowProcess(databaseURL: db.url, freshness: "1s")
        #expect(follower.waitFor("rollup pass"), "\(follower.logText)")
        var hour = -60.0
        var killed = false
        for step in 0..<10 {
            for _ in 0..<world.int(2...5) {
                for unit in world.units(at: hour) { _ = try db.write(unit) }
            }
            if step == 5 {
                // Hold off writes to the refresh's record: the next pass refreshes the prompt
                // cohorts and the send rollups in its transaction, then waits to record the
                // refresh, at its very end, when the follower is killed.
                let blocker = try Connection.connect(url: db.url)
                try blocker.execute("begin")
                try blocker.execute("lock table rollup_refresh_state in exclusive mode")
                let promptAsOf: Date = try db.value("select as_of from prompt_rollup_state")
                let queued = try db.count("rollup_inputs")
                #expect(try Self.eventually { try Self.followerBackends(db.connection).waitingOnLock == 1 })
                follower.send(SIGKILL)
                #expect(follower.waitForExit() == (false, SIGKILL))
                // Its backend notices the lost client within a second and rolls the pass back.
                #expect(try Self.eventually { try Self.followerBackends(db.connection).all == 0 })
                #expect(
                    try db.value("select as_of from prompt_rollup_state") as Date == promptAsOf,
                    "the prompt cohorts' half of the pass was rolled back")
                #expect(try db.count("rollup_inputs") >= queued, "the queue the killed pass took is back")
                try blocker.execute("commit")
                follower = try FollowProcess(databaseURL: db.url, freshness: "1s")
                killed = true
            }
            hour += world.chance(0.3) ? Double(world.int(20...30)) : Double(world.int(1...6))
            usleep(200_000)
        }
        #expect(try Self.caughtUp(db.connection), "\(follower.logText)")
        follower.send(SIGTERM)
        #expect(follower.waitForExit() == (true, 0), "\(follower.logText)")
        #expect(follower.lines("rollup follower stopped").count == 1)
        let asOf: Date = try db.value("select as_of from rollup_refresh_state")
        let status = try RollupStatus.read(connection: db.connection)
        #expect(killed && status.lagSeconds == 0 && status.asOf == asOf)
        try IncrementalRollupTests.expectEqualToRebuild(db, asOf: asOf, "after the follower")
        #expect(try db.count("send_outcomes") > 0)
    }

    @Test func twoFollowersNeverRefreshAtOnce() throws {
        let db = try StoreDatabase()
        var world = RandomIngest(seed: 5)
        let first = try FollowProcess(databaseURL: db.url, freshness: "1s")
        #expect(first.waitFor("rollup pass"), "\(first.logText)")
        let second = try FollowProcess(databaseURL: db.url, freshness: "1s")
        #expect(second.waitFor(Self.standingBy), "\(second.logText)")
        for hour in stride(from: -50.0, to: -30, by: 4) {
            for unit in world.units(at: hour) { _ = try db.write(unit) }
            usleep(300_000)
        }
        #expect(try Self.caughtUp(db.connection))
        #expect(
            second.lines("rollup pass").isEmpty && second.lines(Self.leading).isEmpty,
            "\(first.logText)\n\(second.logText)")
        #expect(first.lines("rollup pass").count >= 2)
        // The spare takes over once the leader has gone, and only then.
        first.send(SIGTERM)
        #expect(first.waitForExit() == (true, 0))
        #expect(second.waitFor("rollup pass"), "\(second.logText)")
        let stopped = try #require(first.lines("rollup follower stopped").first)
        let took = try #require(second.lines(Self.leading).first)
        #expect(stopped.prefix(27) <= took.prefix(27), "\(stopped) / \(took)")
        for unit in world.units(at: -20) { _ = try db.write(unit) }
        #expect(try Self.caughtUp(db.connection))
        #expect(try RollupStatus.read(connection: db.connection).lagSeconds == 0)
        #expect(second.lines(Self.standingBy).count == 1, "one line per change of state")
    }

    /// Each queue counts toward the lag from its oldest entry that is due: a day marked dirty,
    /// an installation's prompt cohorts marked, an input; an entry dated ahead of the clock not
    /// until its time. Pending inputs count the queued inputs and the days.
    @Test func everyQueueCountsTowardTheLagFromItsOldestDueEntry() throws {
        let db = try StoreDatabase()
        _ = try IncrementalRollupTests.refresh(db.connection, asOf: Date())
        func status() throws -> RollupStatus { try RollupStatus.read(connection: db.connection) }
        #expect(try status().pendingInputs == 0 && status().lagSeconds == 0)

        try db.connection.execute(
            """
            insert into prompt_rollup_dirty_installations (app_id, installation_id, due_at, marked_at)
            values ('a', gen_random_uuid(), now() + interval '1 hour', now() - interval '50 seconds')
            """)
        #expect(try status().pendingInputs == 0 && status().lagSeconds == 0, "not due yet")
        try db.connection.execute(
            """
            insert into prompt_rollup_dirty_installations (app_id, installation_id, due_at, marked_at)
            values ('a', gen_random_uuid(), now() - interval '20 seconds', now() - interval '30 seconds')
            """)
        let members = try status()
        #expect(members.pendingInputs == 0 && members.lagSeconds >= 20 && members.lagSeconds < 25, "\(members)")

        try db.connection.execute(
            """
            insert into rollup_dirty_days (app_id, day, marked_at)
            values ('a', current_date, now() - interval '40 seconds')
            """)
        let days = try status()
        #expect(days.pendingInputs == 1 && days.lagSeconds >= 40 && days.lagSeconds < 45, "\(days)")

        try db.connection.execute(
            """
            insert into rollup_inputs (app_id, kind, keys, times, due_at, queued_at)
            values ('a', 'send', '{}', '{}', now() + interval '1 hour', now() - interval '90 seconds'),
                   ('a', 'send', '{}', '{}', now() - interval '60 seconds', now() - interval '70 seconds')
            """)
        let inputs = try status()
        #expect(inputs.pendingInputs == 3 && inputs.lagSeconds >= 60 && inputs.lagSeconds < 65, "\(inputs)")
    }

    @Test func lagStatusAndMetrics() throws {
        let db = try StoreDatabase()
        var world = RandomIngest(seed: 9)
        _ = try IncrementalRollupTests.refresh(db.connection, asOf: Date())
        let fresh = try RollupStatus.read(connection: db.connection)
        #expect(fresh.pendingInputs == 0 && fresh.lagSeconds == 0 && fresh.lastPassSeconds != nil)
        for unit in world.units(at: -40) { _ = try db.write(unit) }
        usleep(1_200_000)
        let behind = try RollupStatus.read(connection: db.connection)
        #expect(behind.pendingInputs > 0 && behind.lagSeconds >= 1.2, "\(behind)")
        // The read-only role reads it too.
        let reader = try Connection.connect(url: TestDatabase.readOnlyReaderURL(for: db.url))
        let read = try RollupStatus.read(connection: reader)
        #expect(read.pendingInputs == behind.pendingInputs && read.lagSeconds >= behind.lagSeconds)

        let follower = try FollowProcess(databaseURL: db.url, freshness: "3s", metrics: true)
        #expect(follower.waitFor("rollup pass"), "\(follower.logText)")
        #expect(try RollupStatus.read(connection: db.connection).lagSeconds == 0)
        // New input just after a pass: rolled up within the freshness while a pass takes less
        // than half of it. A loaded machine makes passes slower, so the bound is the follower's
        // schedule plus the passes it ran in this test: the one in progress when the input came
        // and the one that took it, each at most the longest logged, and a second for the polls.
        for unit in world.units(at: -30) { _ = try db.write(unit) }
        let arrived = Date()
        #expect(
            try Self.eventually(timeout: 60) {
                try RollupStatus.read(connection: db.connection).lagSeconds == 0 && db.count("rollup_inputs") == 0
            })
        let caughtUp = Date().timeIntervalSince(arrived)
        _ = follower.waitFor("rollup pass", count: follower.lines("rollup pass").count + 1)
        let url = db.url
        let schedule = RollupFollower(freshness: 3, logger: Logger(component: "test")) {
            try Connection.connect(url: url)
        }.schedule
        let longestPass = try #require(Self.passSeconds(follower).max())
        let bound = schedule.period + schedule.look + 2 * longestPass + 1
        #expect(caughtUp < bound, "caught up after \(caughtUp) s; passes took up to \(longestPass) s")

        let port = try #require(follower.metricsPort)
        let connection = try RawHTTPConnection(port: port)
        connection.write(RawRequest.make("GET", "/metrics"))
        let reply = try connection.readReply()
        #expect(reply.status == 200)
        let lines = reply.text.split(separator: "\n")
        #expect(lines.contains("pushledger_rollup_lag_seconds 0"), "\(reply.text)")
        #expect(
            lines.contains("pushledger_rollup_follower_leading 1")
                && lines.contains("pushledger_rollup_freshness_seconds 3"))
        #expect(lines.contains { $0.hasPrefix("pushledger_rollup_last_pass_seconds ") })

        // SIGINT in the middle of a pass: the pass finishes and commits, then the follower exits 0.
        let blocker = try Connection.connect(url: db.url)
        try blocker.execute("select pg_advisory_lock(hashtext('pushledger_refresh_rollups'))")
        for unit in world.units(at: -20) { _ = try db.write(unit) }
        #expect(try Self.eventually { try Self.followerBackends(db.connection).waitingOnLock == 1 })
        let passes = follower.lines("rollup pass").count
        follower.send(SIGINT)
        #expect(follower.waitFor("signal received, stopping after the pass in progress"))
        #expect(follower.isRunning, "it waits for its pass")
        try blocker.execute("select pg_advisory_unlock(hashtext('pushledger_refresh_rollups'))")
        #expect(follower.waitForExit() == (true, 0), "\(follower.logText)")
        #expect(follower.lines("rollup pass").count == passes + 1)
        #expect(try db.count("rollup_inputs") == 0 && RollupStatus.read(connection: db.connection).lagSeconds == 0)
    }

    /// Ingest that pauses is rolled up a quiet interval later (a tenth of the period: 6 s at a
    /// freshness of 120 s), not at the end of the period (60 s).
    @Test func inputsWaitingWhenIngestPausesAreRolledUpBeforeThePeriodEnds() throws {
        let db = try StoreDatabase()
        var world = RandomIngest(seed: 12)
        let follower = try FollowProcess(databaseURL: db.url, freshness: "120s")
        #expect(follower.waitFor("rollup pass"), "\(follower.logText)")
        let firstPass: Date = try db.value("select pass_started_at from rollup_refresh_state")
        for unit in world.units(at: -30) { _ = try db.write(unit) }
        let arrived = Date()
        #expect(try db.count("rollup_inputs") > 0)
        // Polled past the period's end, so a follower that waits for it catches up too and fails
        // on the order below rather than on a loaded machine's clock.
        #expect(try Self.caughtUp(db.connection, timeout: 120), "\(follower.logText)")
        let caughtUp = Date().timeIntervalSince(arrived)
        #expect(caughtUp >= 6 - 0.5, "no early pass sooner than the quiet interval after the last: \(caughtUp) s")
        // The pass that took them began well before the period (60 s) ended, on the database's
        // clock: within half of it (the quiet interval is 6 s).
        let catching: Date = try db.value("select pass_started_at from rollup_refresh_state")
        #expect(catching.timeIntervalSince(firstPass) < 30, "the second pass began \(catching) (first \(firstPass))")
        #expect(follower.waitFor("rollup pass", count: 2) && follower.lines("rollup pass").count == 2)
        #expect(try RollupStatus.read(connection: db.connection).lagSeconds == 0)
        // Past the quiet interval after that pass, ingest that ends with no other transaction
        // writing is rolled up once it has been idle a quarter second, not after the quiet interval.
        sleep(7)
        for unit in world.units(at: -20) { _ = try db.write(unit) }
        let ended = Date()
        #expect(try Self.caughtUp(db.connection, timeout: 120), "\(follower.logText)")
        let idle = Date().timeIntervalSince(ended)
        #expect(idle < 6 - 0.5, "the pass after ingest went idle waited for the quiet interval: \(idle) s")
        #expect(follower.waitFor("rollup pass", count: 3) && follower.lines("rollup pass").count == 3)
        #expect(Self.triggers(follower) == ["start", "settled", "settled"], "\(follower.logText)")
    }

    /// Why each pass the follower logged started (its `trigger` field).
    static func triggers(_ follower: FollowProcess) -> [String] {
        follower.lines("rollup pass").compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("trigger=") }.map { String($0.dropFirst(8)) }
        }
    }

    /// Writers that announce going idle (as `pushledger serve`'s do) start the pass at once, without
    /// the settle interval; one more pass follows a settle interval later, nothing waiting.
    @Test func aPassStartsWhenTheWritersAnnounceIngestIdle() throws {
        let db = try StoreDatabase()
        var world = RandomIngest(seed: 13)
        let follower = try FollowProcess(databaseURL: db.url, freshness: "20s")
        #expect(follower.waitFor("rollup pass"), "\(follower.logText)")
        sleep(2)  // past the quiet interval (1 s) after the first pass: an early pass may come
        for unit in world.units(at: -30) { _ = try db.write(unit) }
        #expect(try db.count("rollup_inputs") > 0)
        try db.connection.execute("select pushledger_announce_ingest_idle()")
        #expect(try Self.caughtUp(db.connection), "\(follower.logText)")
        #expect(follower.waitFor("rollup pass", count: 3), "\(follower.logText)")
        #expect(Self.triggers(follower) == ["start", "announced_idle", "confirmation"], "\(follower.logText)")
    }

    @Test func reconnectsAfterPostgresRestarts() throws {
        let cluster = try LocalCluster(name: "rollup-follow")
        defer { cluster.destroy() }
        let connection = try Connection.connect(url: cluster.url)
        try Migrator(directory: TestDatabase.sqlDirectory).migrate(connection)
        let follower = try FollowProcess(databaseURL: cluster.url, freshness: "1s")
        #expect(follower.waitFor("rollup pass"), "\(follower.logText)")
        try cluster.stop()
        #expect(follower.waitFor(Self.unreachable), "\(follower.logText)")
        sleep(2)
        try cluster.resume()
        #expect(follower.waitFor(Self.leading, count: 2, timeout: 60), "\(follower.logText)")
        #expect(follower.lines(Self.unreachable).count == 1, "one line per change of state: \(follower.logText)")
        let again = try Connection.connect(url: cluster.url)
        var world = RandomIngest(seed: 3)
        for unit in world.units(at: -10) { _ = try EventWriter().write([unit], on: again) }
        #expect(try Self.caughtUp(again))
        #expect(try RollupStatus.read(connection: again).lagSeconds == 0)
        follower.send(SIGTERM)
        #expect(follower.waitForExit() == (true, 0))
    }
}
