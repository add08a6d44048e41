import Foundation
import Postgres
import PushLedgerCore

/// Stores validated ingest units: the units of many requests in one transaction, so a writer
/// worker commits a whole batch at once and every request in it is durable before it is answered.
///
/// All events are COPYed into session-local staging tables, then one SQL call
/// (`pushledger_apply_staged`, sql/migrations/0003) de-duplicates by (app_id, event_id) — the
/// first copy by unit order then index wins, across requests, batches and event types — and
/// inserts set-based: no statement per row. Rejections and failed requests go to
/// `failed_events`.
public struct EventWriter: Sendable {
    public init() {}

    /// Writes `units` in one transaction of its own (the connection must not already be in
    /// one) and returns one outcome per unit, in order. Throws `PostgresError` and then nothing
    /// of the batch is stored (`isConnectionProblem` tells a 503 from a bug).
    public func write(_ units: [IngestUnit], on connection: Connection) throws -> [WriteOutcome] {
        guard !units.isEmpty else { return [] }
        let batch = StagedBatch(units)
        let stored = try connection.transaction { connection -> [Int: Int] in
            try connection.execute("select pushledger_create_staging()")
            try copy(batch, on: connection)
            guard batch.eventCount > 0 else { return [:] }
            var stored: [Int: Int] = [:]
            for row in try connection.query("select unit, accepted from pushledger_apply_staged()") {
                stored[try row.decode("unit", as: Int.self)] = try row.decode("accepted", as: Int.self)
            }
            return stored
        }
        return batch.validCounts.enumerated().map { unit, valid in
            let accepted = stored[unit] ?? 0
            return WriteOutcome(accepted: accepted, duplicates: valid - accepted)
        }
    }

    private func copy(_ batch: StagedBatch, on connection: Connection) throws {
        if !batch.telemetry.isEmpty {
            try connection.copyIn(table: "stage_telemetry", columns: StagedBatch.telemetryColumns) { writer in
                for row in batch.telemetry { writer.row(row) }
            }
        }
        if !batch.channels.isEmpty {
            try connection.copyIn(table: "stage_channels", columns: StagedBatch.channelColumns) { writer in
                for row in batch.channels { writer.row(row) }
            }
        }
        if !batch.sends.isEmpty {
            try connection.copyIn(table: "stage_sends", columns: StagedBatch.sendColumns) { writer in
                for row in batch.sends { writer.row(row) }
            }
        }
        if !batch.failures.isEmpty {
            try connection.copyIn(table: "failed_events", columns: StagedBatch.failureColumns) { writer in
                for row in batch.failures { writer.row(row) }
            }
        }
    }
}
