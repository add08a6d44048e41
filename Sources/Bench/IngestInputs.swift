import Foundation
import Gzip
import Simulator

/// The ingest benchmark's requests, generated ahead of the run: the simulator's fleet as gzip
/// bodies on disk plus a manifest, so the load generator only posts bytes and spends no CPU
/// on encoding while the server is measured.
public enum IngestInputs {
    /// What `write` produced.
    public struct Summary: Sendable, Equatable {
        public var telemetryRequests = 0
        public var sendsRequests = 0
        public var telemetryEvents = 0
        public var sends = 0
        public var gzipBytes = 0

        public var requests: Int { telemetryRequests + sendsRequests }
        public var events: Int { telemetryEvents + sends }
    }

    /// The manifest's name inside the output folder: one request a line,
    /// `file<TAB>path<TAB>content-type<TAB>events`, in posting order.
    public static let manifestName = "manifest.tsv"

    /// Writes every request of `config`'s fleet into `directory` (created if missing).
    /// Telemetry bodies are stamped as sent at `nowMs`; the two endpoints are interleaved
    /// evenly so the whole run sees the same mix. Retried copies are left out (the config's
    /// `duplicateBatchShare` should be 0) so every posted event is stored exactly once.
    public static func write(_ config: SimulationConfig, to directory: URL, nowMs: Int64) throws -> Summary {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var telemetry: [TelemetryBatch] = []
        let (sends, _) = Simulation.stream(config) { batches, _ in telemetry.append(contentsOf: batches) }
        var summary = Summary()
        var lines: [(rank: Double, line: String)] = []
        func add(_ body: [UInt8], path: String, contentType: String, events: Int, rank: Double) throws {
            let name = String(format: "%06d.gz", lines.count)
            let gzip = Gzip.compress(body)
            try Data(gzip).write(to: directory.appendingPathComponent(name))
            summary.gzipBytes += gzip.count
            lines.append((rank, "\(name)\t\(path)\t\(contentType)\t\(events)"))
        }
        for (i, batch) in telemetry.enumerated() where !batch.isRetry {
            try add(
                batch.stamped(nowMs: nowMs), path: "/v1/telemetry", contentType: "application/json",
                events: batch.eventCount, rank: Double(i) / Double(telemetry.count))
            summary.telemetryRequests += 1
            summary.telemetryEvents += batch.eventCount
        }
        for (i, batch) in sends.enumerated() where !batch.isRetry {
            try add(
                batch.body, path: "/v1/sends", contentType: batch.contentType, events: batch.eventCount,
                rank: Double(i) / Double(sends.count))
            summary.sendsRequests += 1
            summary.sends += batch.eventCount
        }
        let manifest = lines.sorted { $0.rank < $1.rank }.map(\.line).joined(separator: "\n") + "\n"
        try Data(manifest.utf8).write(to: directory.appendingPathComponent(manifestName))
        return summary
    }
}
