import Foundation
import Postgres
import TestSupport
import Testing

/// Commands whose database goes away: they exit 2 with one line, and what they were doing is
/// all or nothing. (The failover suite moves a real primary under running ingestors; these
/// cut one command's connection at a chosen point.)
@Suite("Commands losing their database")
struct DatabaseLostCommandTests {
    /// The rollup's transaction has refreshed the prompt rollups and waits for the report
    /// rollups' lock when its connection is cut (as a failover cuts it): exit 2, one line, and
    /// none of its work is left behind; run again, it completes.
    @Test func aRollupCutOffMidTransactionLeavesNothingHalfAppliedAndExits2() throws {
        let fleet = try SimulatedFleet(prefix: "clilost", installs: 60, days: 3)
        defer {
            fleet.serve.send(SIGTERM)
            fleet.serve.waitForExit()
        }
        let url = fleet.environment["DATABASE_URL"]!
        let connection = try Connection.connect(url: url)
        let rollups: SQL = """
            select (select count(*) from prompt_cohort_members)::int8 as members,
                   (select count(*) from send_rollups_daily)::int8 as sends,
                   (select count(*) from rollup_refresh_state where refreshed_at is not null)::int8 as refreshed
            """
        func state() throws -> [Int] {
            let row = try connection.query(rollups)[0]
            return [try row.decode("members"), try row.decode("sends"), try row.decode("refreshed")]
        }
        let before = try state()
        let holder = try Connection.connect(url: url)
        try holder.query("select pg_advisory_lock(hashtext('pushledger_refresh_rollups'))")
        let rollup = Background { try CommandRunner.run(["rollup"], environment: fleet.environment) }
        // The rollup's backend, waiting for the lock after the prompt rollups' part.
        var waiting: Int?
        waitUntil {
            waiting = try? connection.query(
                """
                select pid from pg_stat_activity
                 where datname = current_database() and wait_event_type = 'Lock' and wait_event = 'advisory'
                """
            ).first?.decode("pid", as: Int.self)
            return waiting != nil || rollup.isFinished
        }
        let pid = try #require(waiting, "the rollup never waited for the lock")
        try connection.query("select pg_terminate_backend(\(pid)::int4)")
        let result = try rollup.value()
        #expect(result.status == 2)
        let lines = result.stderr.split(separator: "\n").filter { !$0.contains("level=") }
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.contains("lost the database connection") == true)
        #expect(lines.first?.contains("not applied") == true)
        #expect(try state() == before)
        try holder.query("select pg_advisory_unlock_all()")
        let again = try CommandRunner.run(["rollup"], environment: fleet.environment)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try state() != before)
    }

    /// Every command that writes, on a database that cannot be reached: exit 2, one line.
    @Test(arguments: [
        ["migrate"], ["rollup"], ["alert", "check"], ["retention", "--keep", "400d"], ["keys", "list"],
        ["erase", "--app", "com.example.shop", "--installation", "6f1c1c9e-9a43-4a4e-9d8c-1d7a2b9d1e01"],
    ])
    func anUnreachableDatabaseExits2WithOneLine(arguments: [String]) throws {
        // Two hosts, neither listening: the multi-host form of the high-availability guide.
        let environment = [
            "DATABASE_URL":
                "postgres://pushledger@127.0.0.1:1,127.0.0.1:2/pushledger"
                + "?target_session_attrs=read-write&connect_timeout=2"
        ]
        let result = try CommandRunner.run(arguments, environment: environment)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(arguments): \(result.stderr)")
        #expect(lines.first?.contains("cannot connect to PostgreSQL") == true, "\(result.stderr)")
    }
}
