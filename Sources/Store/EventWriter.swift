import Foundation
import Postgres
import PushLedgerContract

/// Stores validated ingest units: the units of many requests in one transaction, so a writer
/// worker commits a whole batch at once and every request in it is durable before it is answered.
///
/// All events are COPYed into session-local staging tables, then one SQL call
/// (`pushledger_apply_staged`, sql/writer/apply.sql) de-duplicates by (app_id, event_id) — the
/// first copy by unit order then index wins, across requests, batches and event types — and
/// inserts set-based: no statement per row. Rejections and failed requests go to
/// `failed_events`.
public struct EventWriter: Sendable {
    public init() {}

    /// Attempts per batch when Postgres breaks a deadlock by aborting this writer.
    public static let maxAttempts = 3

    /// Writes `units` in one transaction of its own (the connection must not already be in
    /// one) and returns one outcome per unit, in order. Throws `PostgresError` and then nothing
    /// of the batch is stored (`isConnectionProblem` tells a 503 from a bug). A batch chosen as
    /// a deadlock victim (40P01, possible when two writers touch the same tokens) is retried.
    /// A batch holding a row too big for the TOAST-less staging tables (54000, sql/writer/staging.sql)
    /// is retried once with staging tables that have TOAST; the session keeps those.
    /// `dryRun`: the same statements in a transaction that is rolled back (the answer a real
    /// write would get, with nothing stored).
    public func write(_ units: [IngestUnit], on connection: Connection, dryRun: Bool = false) throws -> [WriteOutcome] {
        guard !units.isEmpty else { return [] }
        let batch = StagedBatch(units)
        var attempt = 1
        var stagingWithTOAST = false
        while true {
            do {
                return try write(batch, stagingWithTOAST: stagingWithTOAST, dryRun: dryRun, on: connection)
            } catch let error as PostgresError where error.sqlState == "40P01" && attempt < Self.maxAttempts {
                attempt += 1
            } catch let error as PostgresError where error.sqlState == "54000" && !stagingWithTOAST {
                stagingWithTOAST = true
            }
        }
    }

    private func write(_ batch: StagedBatch, stagingWithTOAST: Bool, dryRun: Bool, on connection: Connection) throws -> [WriteOutcome] {
        let apply = { (connection: Connection) throws -> [Int: Int] in
            try connection.execute("select pushledger_create_staging(\(stagingWithTOAST))")
            try copy(batch, on: connection)
            guard batch.eventCount > 0 else { return [:] }
            var stored: [Int: Int] = [:]
            for row in try connection.query("select unit, accepted from pushledger_apply_staged()") {
                stored[try row.decode("unit", as: Int.self)] = try row.decode("accepted", as: Int.self)
            }
            return stored
        }
        let stored: [Int: Int]
        if dryRun {
            do {
                _ = try connection.transaction { connection -> Never in throw RolledBack(stored: try apply(connection)) }
            } catch let rolledBack as RolledBack {
                stored = rolledBack.stored
            }
        } else {
            stored = try connection.transaction(apply)
        }
        return batch.validCounts.enumerated().map { unit, valid in
            let accepted = stored[unit] ?? 0
            return WriteOutcome(accepted: accepted, duplicates: valid - accepted)
        }
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
