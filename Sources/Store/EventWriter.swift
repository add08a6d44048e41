import Foundation
import Postgres
import PushLedgerContract
import Synchronization

/// Stores validated ingest units: the units of many requests in one transaction, so a writer
/// worker commits a whole batch at once and every request in it is durable before it is answered.
///
/// All events are COPYed into session-local staging tables, then one SQL call
/// (`pushledger_apply_staged`, sql/writer/apply.sql) de-duplicates by (app_id, event_id) — the
/// first copy by unit order then index wins, across requests, batches and event types — and
/// inserts set-based: no statement per row. Rejections and failed requests go to
/// `failed_events`.
public struct EventWriter: Sendable {
    /// UTC days this writer has seen covered by partitions (kept per writer: one database).
    private let coverage = PartitionCoverage()

    public init() {}

    /// Attempts per batch when Postgres breaks a deadlock by aborting this writer.
    public static let maxAttempts = 3

    /// Writes `units` in one transaction of its own (the connection must not already be in
    /// one) and returns one outcome per unit, in order. Throws `PostgresError` and then nothing
    /// of the batch is stored (`isConnectionProblem` tells a 503 from a bug). A batch chosen as
    /// a deadlock victim (40P01, possible when two writers touch the same tokens) is retried.
    /// A batch holding a row too big for the TOAST-less staging tables (54000, sql/writer/staging.sql)
    /// is retried once with staging tables that have TOAST; the session keeps those. The staging
    /// tables are created once a session; a session that lost them (42P01) gets them again.
    /// `dryRun`: the same statements in a transaction that is rolled back (the answer a real
    /// write would get, with nothing stored).
    public func write(_ units: [IngestUnit], on connection: Connection, dryRun: Bool = false) throws -> [WriteOutcome] {
        guard !units.isEmpty else { return [] }
        let batch = StagedBatch(units)
        // Dry runs create nothing outside their transaction; theirs checks the partitions itself.
        if !dryRun { try ensurePartitions(for: batch, on: connection) }
        var attempt = 1
        var stagingWithTOAST = false
        while true {
            do {
                return try write(
                    batch, stagingWithTOAST: stagingWithTOAST, partitionsCovered: !dryRun, dryRun: dryRun,
                    on: connection)
            } catch let error as PostgresError where error.sqlState == "40P01" && attempt < Self.maxAttempts {
                attempt += 1
            } catch let error as PostgresError where error.sqlState == "54000" && !stagingWithTOAST {
                stagingWithTOAST = true
            } catch let error as PostgresError
                where error.sqlState == "42P01" && connection.sessionMarks.contains(Self.stagingMark)
            {
                // The session lost its staging tables (dropped by hand): created again.
                connection.sessionMarks.subtract([Self.stagingMark, Self.stagingWithTOASTMark])
            }
        }
    }

    /// Session marks (`Connection.sessionMarks`): the staging tables exist in this session,
    /// without or with TOAST (committed: a rolled-back transaction that created them left none).
    public static let stagingMark = "pushledger.writer.staging",
        stagingWithTOASTMark = "pushledger.writer.staging.toast"

    /// One transaction: the staging tables (created once a session), the COPYs, one call that
    /// stores the batch. `partitionsCovered`: the batch's days were just seen covered, so that
    /// call skips its own partition check.
    private func write(
        _ batch: StagedBatch, stagingWithTOAST: Bool, partitionsCovered: Bool, dryRun: Bool, on connection: Connection
    ) throws -> [WriteOutcome] {
        let staged = connection.sessionMarks.contains(stagingWithTOAST ? Self.stagingWithTOASTMark : Self.stagingMark)
        let apply = { (connection: Connection) throws -> [Int: Int] in
            if !staged { try connection.execute("select pushledger_create_staging(\(stagingWithTOAST))") }
            try copy(batch, on: connection)
            guard batch.eventCount > 0 else { return [:] }
            var stored: [Int: Int] = [:]
            let call: SQL =
                """
                select unit, accepted from pushledger_apply_staged(\(batch.telemetry.count), \
                \(batch.sends.count), \(!partitionsCovered))
                """
            for row in try connection.query(call) {
                stored[try row.decode("unit", as: Int.self)] = try row.decode("accepted", as: Int.self)
            }
            return stored
        }
        let stored: [Int: Int]
        if dryRun {
            do {
                _ = try connection.transaction { connection -> Never in throw RolledBack(stored: try apply(connection))
                }
            } catch let rolledBack as RolledBack {
                stored = rolledBack.stored
            }
        } else {
            stored = try connection.transaction(apply)
            if !staged {
                connection.sessionMarks.insert(Self.stagingMark)
                if stagingWithTOAST { connection.sessionMarks.insert(Self.stagingWithTOASTMark) }
            }
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
    private func ensurePartitions(for batch: StagedBatch, on connection: Connection) throws {
        guard let range = batch.timeRange else { return }
        let days = PartitionCoverage.days(range)
        guard !coverage.covers(days) else { return }
        try connection.execute("call pushledger_create_partitions_apart(\(range.lowerBound), \(range.upperBound))")
        coverage.add(days)
    }

    private func copy(_ batch: StagedBatch, on connection: Connection) throws {
        let tables: [(String, [String], [StagedBatch.Row])] = [
            ("stage_telemetry", StagedBatch.telemetryColumns, batch.telemetry),
            ("stage_channels", StagedBatch.channelColumns, batch.channels),
            ("stage_sends", StagedBatch.sendColumns, batch.sends),
            ("failed_events", StagedBatch.failureColumns, batch.failures),
        ]
        for (table, columns, rows) in tables where !rows.isEmpty {
            try connection.copyIn(table: table, columns: columns) { writer in
                for row in rows { writer.row(row) }
            }
        }
        // Temp tables get no autovacuum: pushledger_apply_staged analyzes them when a batch
        // outgrows their statistics (sql/writer/staging.sql).
    }
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
