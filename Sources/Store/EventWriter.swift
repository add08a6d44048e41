import Foundation
import Postgres
import PushLedgerContract
import Synchronization

/// Stores validated ingest units: the units of many requests in one transaction, so a writer
/// worker commits a whole batch at once and every request in it is durable before it is answered.
///
/// The batch goes to Postgres in one round trip: one statement, its own transaction, calling
/// `pushledger_apply_batch` (sql/writer/apply.sql) with each kind of row as one array in binary
/// format (no text to quote here or parse there). It de-duplicates by (app_id, event_id) — the
/// first copy by unit order then index wins, within the batch here and against earlier batches
/// there — and inserts set-based: no statement per row. Rejections and failed requests go to
/// `failed_events` in the same call.
public struct EventWriter: Sendable {
    /// UTC days this writer has seen covered by partitions. A writer writes to one database.
    private let coverage = PartitionCoverage()
    /// The batch rows' composite types (their OIDs are the database's), looked up by the first write.
    private let types = KnownTypes()

    public init() {}

    /// Attempts per batch when Postgres breaks a deadlock by aborting this writer.
    public static let maxAttempts = 3

    /// Writes `units` in one transaction of its own (the connection must not already be in
    /// one) and returns one outcome per unit, in order. Throws `PostgresError` and then nothing
    /// of the batch is stored (`isConnectionProblem` tells a 503 from a bug). A batch chosen as
    /// a deadlock victim (40P01, possible when two writers touch the same tokens or installations)
    /// is retried.
    /// `dryRun`: the same statement in a transaction that is rolled back (the answer a real
    /// write would get, with nothing stored). `deferDerived`: the installations the batch proves
    /// alive and the earlier sends its registrations re-resolve are queued for
    /// ``applyDerived(on:)`` instead of applied before the commit (the events, tokens and
    /// invalid-token feed are stored either way).
    public func write(
        _ units: [IngestUnit], on connection: Connection, dryRun: Bool = false, deferDerived: Bool = false
    ) throws -> [WriteOutcome] {
        guard !units.isEmpty else { return [] }
        let batch = BatchRows(units, types: try batchTypes(connection))
        // Dry runs create nothing outside their transaction; theirs checks the partitions itself.
        if !dryRun { try ensurePartitions(for: batch, on: connection) }
        return try Self.retryingDeadlocks {
            try write(batch, dryRun: dryRun, deferDerived: deferDerived && !dryRun, on: connection)
        }
    }

    /// The batch rows' types, looked up on the first write: a migration that changes them comes
    /// with a server that writes the new fields, started after it.
    private func batchTypes(_ connection: Connection) throws -> BatchRows.Types {
        if let known = types.value.withLock({ $0 }) { return known }
        let types = try BatchRows.Types(connection)
        self.types.value.withLock { $0 = types }
        return types
    }

    /// Applies the derived state of every batch written with `deferDerived` that has committed
    /// (`pushledger_apply_derived_inputs`, sql/writer/apply.sql), in one transaction of its own;
    /// returns how many batches. Rollup passes and erasures apply it first themselves; while one
    /// holds the queue (a pass until it commits) this returns 0 at once and what waits stays.
    @discardableResult
    public func applyDerived(on connection: Connection) throws -> Int {
        try Self.retryingDeadlocks {
            try connection.queryCommitting("select pushledger_apply_derived_inputs(false) as batches")[0].decode(
                "batches", as: Int.self)
        }
    }

    /// What a writer does when its queue has gone quiet: applies the derived state waiting
    /// (``applyDerived(on:)``) and announces that ingest went idle
    /// (`pushledger_announce_ingest_idle`, heard by `pushledger rollup --follow` as it commits),
    /// in one transaction; returns how many batches' derived state it applied.
    @discardableResult
    public func wentIdle(on connection: Connection) throws -> Int {
        try Self.retryingDeadlocks {
            try connection.queryCommitting(
                "select pushledger_apply_derived_inputs(false) as batches, pushledger_announce_ingest_idle()"
            )[0].decode("batches", as: Int.self)
        }
    }

    /// Runs `body` again when Postgres breaks a deadlock by aborting it, `maxAttempts` times at most.
    private static func retryingDeadlocks<T>(_ body: () throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try body()
            } catch let error as PostgresError where error.sqlState == "40P01" && attempt < Self.maxAttempts {
                attempt += 1
            }
        }
    }

    /// The one statement. A real write has just seen the batch's days covered, so the call
    /// skips its own partition check; a dry run's call checks them itself.
    private func write(
        _ batch: BatchRows, dryRun: Bool, deferDerived: Bool, on connection: Connection
    ) throws -> [WriteOutcome] {
        guard batch.telemetry.count + batch.sends.count + batch.failures.count > 0 else {
            return batch.validCounts.map { WriteOutcome(accepted: 0, duplicates: $0) }
        }
        let call: SQL =
            """
            select unit, accepted from pushledger_apply_batch(\(batch.telemetry)::pushledger_batch_telemetry[], \
            \(batch.channels)::pushledger_batch_channel[], \(batch.sends)::pushledger_batch_send[], \
            \(batch.failures)::pushledger_batch_failure[], \(dryRun), \(deferDerived))
            """
        let apply = { (connection: Connection) throws -> [Int: Int] in
            var stored: [Int: Int] = [:]
            for row in try dryRun ? connection.query(call) : connection.queryCommitting(call) {
                stored[try row.decode("unit", as: Int.self)] = try row.decode("accepted", as: Int.self)
            }
            return stored
        }
        let stored: [Int: Int]
        if dryRun {
            do {
                _ = try connection.transaction { connection -> Never in
                    throw RolledBack(stored: try apply(connection))
                }
            } catch let rolledBack as RolledBack {
                stored = rolledBack.stored
            }
        } else {
            stored = try apply(connection)
        }
        return batch.validCounts.enumerated().map { unit, valid in
            let accepted = stored[unit] ?? 0
            return WriteOutcome(accepted: accepted, duplicates: valid - accepted)
        }
    }

    /// Creates the partitions a batch reaching a day not seen covered needs, before its
    /// transaction and one table a transaction (`pushledger_create_partitions_apart`,
    /// sql/partitions/partitions.sql): inside the batch's transaction, holding one parent
    /// table's exclusive lock while waiting for the next one's behind a rollup refresh
    /// deadlocked with that refresh. The batch's own call then finds them all and locks nothing.
    private func ensurePartitions(for batch: BatchRows, on connection: Connection) throws {
        guard let range = batch.timeRange else { return }
        let days = PartitionCoverage.days(range)
        guard !coverage.covers(days) else { return }
        try connection.execute("call pushledger_create_partitions_apart(\(range.lowerBound), \(range.upperBound))")
        coverage.add(days)
    }
}

/// The batch rows' composite types once looked up, shared by a writer's copies.
private final class KnownTypes: Sendable {
    let value = Mutex<BatchRows.Types?>(nil)
}

/// Carries a dry run's answer out of the transaction it rolls back.
private struct RolledBack: Error {
    var stored: [Int: Int]
}

/// The UTC days a writer has seen covered by partitions. Partitions are dropped only by
/// retention, of days past its cutoff; a late event of such a day after the drop still
/// lands, in the table's DEFAULT partition (`pushledger partitions` moves it out).
private final class PartitionCoverage: Sendable {
    private let days = Mutex<Set<Int>>([])
    /// Ranges longer than this are checked every time rather than remembered day by day.
    static let maxDays = 400

    static func days(_ range: ClosedRange<Date>) -> ClosedRange<Int> {
        Int(
            (range.lowerBound.timeIntervalSince1970 / 86_400).rounded(.down))...Int(
                (range.upperBound.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    func covers(_ range: ClosedRange<Int>) -> Bool {
        days.withLock { known in range.allSatisfy { known.contains($0) } }
    }

    func add(_ range: ClosedRange<Int>) {
        guard range.count <= Self.maxDays else { return }
        days.withLock { $0.formUnion(range) }
    }
}
