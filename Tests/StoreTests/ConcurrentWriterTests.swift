import Dispatch
import Foundation
import Postgres
import PushLedgerContract
import Reports
import Store
import Synchronization
import Testing

@testable import OutcomeEngine

/// Writer workers run side by side: overlapping batches must store each event once and count
/// the rest as duplicates, whoever commits first.
@Suite struct ConcurrentWriterTests {
    typealias F = Fixture

    @Test func overlappingBatchesOnTwoConnectionsStoreEachEventOnce() throws {
        let db = try StoreDatabase()
        let url = db.url
        let results = Mutex<[Result<[WriteOutcome], any Error>]>([])
        // Worker 0 writes events 0..<300, worker 1 writes 200..<500, in opposite orders.
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            let result = Result { () throws -> [WriteOutcome] in
                let connection = try Connection.connect(url: url)
                var range = Array(worker == 0 ? 0..<300 : 200..<500)
                if worker == 1 { range.reverse() }
                let units = stride(from: 0, to: range.count, by: 50).map { start in
                    let env = F.envelope(installation: F.installation(start + worker * 1000))
                    return F.telemetry(env, range[start..<start + 50].map { F.event($0, at: 1, F.received($0)) })
                }
                return try EventWriter().write(units, on: connection)
            }
            results.withLock { $0.append(result) }
        }
        let outcomes = try results.withLock { try $0.flatMap { try $0.get() } }
        #expect(outcomes.reduce(0) { $0 + $1.accepted } == 500)
        #expect(outcomes.reduce(0) { $0 + $1.duplicates } == 100)
        #expect(try db.count("notification_receipts") == 500)
        #expect(try db.count("event_ids") == 500)
    }
}

/// A refresh running while writers commit must never lose a dirty mark: after the last
/// refresh, every day's rollup equals the direct classification.
@Suite struct ConcurrentRefreshTests {
    typealias F = Fixture

    @Test func refreshesDuringIngestConvergeToTheEngine() throws {
        let db = try StoreDatabase()
        let url = db.url
        _ = try db.write(
            F.telemetry(
                F.envelope(installation: F.installation(1)), [F.event(900, at: -60, F.androidSettings(enabled: true))]))
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            do {
                let connection = try Connection.connect(url: url)
                for round in 0..<15 {
                    if worker == 1 {
                        _ = try ReportRollups.refresh(connection: connection, asOf: F.time(200))
                        continue
                    }
                    // Sends on two days, and receipts confirming the previous round's sends.
                    let base = round * 10
                    let sends = (0..<10).map { i in
                        F.send(
                            base + i, notification: base + i, at: Double(i % 2) * -24 - 5,
                            installation: F.installation(1))
                    }
                    let receipts = (0..<10).map { i in F.event(10_000 + base + i, at: 30, F.received(base + i - 10)) }
                    _ = try EventWriter().write(
                        [F.sends(sends), F.telemetry(F.envelope(installation: F.installation(1)), receipts)],
                        on: connection)
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        _ = try ReportRollups.refresh(connection: db.connection, asOf: F.time(200))
        let rolled: Int = try db.value("select sum(received)::int from send_rollups_daily")
        let direct: Int = try db.value(
            """
            select count(*)::int from pushledger_classified_sends(\(F.app), \(F.time(-48)), \(F.time(48)), \
            \(F.time(200)))
             where outcome = 'received'
            """)
        #expect(direct == 140)
        #expect(rolled == direct)
        let sends: Int = try db.value("select sum(sends)::int from send_rollups_daily")
        #expect(sends == 150)
    }
}

/// A writer aborted as a deadlock victim retries its batch instead of failing the requests.
@Suite struct DeadlockRetryTests {
    typealias F = Fixture

    @Test func aDeadlockVictimRetriesItsBatch() throws {
        let db = try StoreDatabase()
        let blocker = try Connection.connect(url: db.url)
        let writer = try Connection.connect(url: db.url)
        // The writer detects the deadlock first, so it is the one Postgres aborts.
        try writer.execute("set deadlock_timeout = '50ms'")
        try blocker.execute("set deadlock_timeout = '60s'")
        try blocker.executeScript("begin")
        try blocker.execute("insert into event_ids values (\(F.app), \(F.event(2)), now())")

        let unit = F.telemetry(
            F.envelope(installation: F.installation(1)),
            [F.event(1, at: 1, F.received(1)), F.event(2, at: 1, F.received(2))])
        let write = BlockedWork(on: writer) { try EventWriter().write([unit], on: $0) }
        // Wait until the writer holds event 1 and waits for event 2 ...
        try write.waitUntilWaiting(seenFrom: blocker)
        // ... then close the cycle: this insert waits for the writer, which is aborted and retries.
        try blocker.execute("insert into event_ids values (\(F.app), \(F.event(1)), now())")
        try blocker.executeScript("rollback")
        let outcomes = try write.value()
        #expect(outcomes == [WriteOutcome(accepted: 2, duplicates: 0)])
        #expect(try db.count("notification_receipts") == 2)
    }
}

/// A batch that needs new partitions beside a rollup refresh: the refresh reads the telemetry
/// tables before sends, and a writer creating the partitions in its batch's transaction held
/// sends' exclusive lock while it waited for settings_snapshots' (behind the refresh), so the
/// refresh's next read of sends closed a cycle (40P01). The writer now creates them before its
/// transaction, one table a transaction, and holds no lock while it waits.
@Suite struct PartitionDeadlockTests {
    typealias F = Fixture

    @Test func aBatchCreatingPartitionsNeverDeadlocksARefresh() throws {
        let db = try StoreDatabase()
        // A month no partition covers yet: the batch creates one for every partitioned table.
        let hours = -24.0 * 400
        let month: String = try db.value("select to_char(\(F.time(hours)) at time zone 'UTC', 'YYYY_MM')")
        #expect(try db.count("pg_class", "relname = 'sends_p\(month)'") == 0)
        let refresh = try Connection.connect(url: db.url)
        let writer = try Connection.connect(url: db.url)
        // Were there a cycle, the refresh's side would detect it and be the one aborted.
        try refresh.execute("set deadlock_timeout = '20ms'")
        try writer.execute("set deadlock_timeout = '60s'")
        // The refresh's pass so far: it has read settings_snapshots.
        try refresh.executeScript("begin")
        _ = try refresh.query("select count(*) from settings_snapshots")

        let unit = F.telemetry(
            F.envelope(installation: F.installation(1)), [F.event(1, at: hours, F.androidSettings(enabled: true))])
        let sends = F.sends([F.send(2, notification: 2, at: hours, installation: F.installation(1))])
        let write = BlockedWork(on: writer) { try EventWriter().write([unit, sends], on: $0) }
        // The writer waits for settings_snapshots behind the refresh ...
        try write.waitUntilWaiting(seenFrom: refresh)
        // ... and the refresh goes on to read sends: no cycle, so nothing is aborted.
        _ = try refresh.query("select count(*) from sends")
        usleep(100_000)
        _ = try refresh.query("select count(*) from notification_receipts")
        try refresh.executeScript("commit")
        let outcomes = try write.value()
        #expect(outcomes == [WriteOutcome(accepted: 1, duplicates: 0), WriteOutcome(accepted: 1, duplicates: 0)])
        #expect(try db.count("pg_class", "relname in ('sends_p\(month)', 'settings_snapshots_p\(month)')") == 2)
        #expect(try db.count("sends") == 1 && db.count("settings_snapshots") == 1)
    }
}
