import Foundation
import HTTPClient
import Simulator
import Synchronization
import TestSupport

/// Valid traffic from the simulator (telemetry and sends), posted with retries by client
/// threads. It remembers every event the server acknowledged: in a 200 whose `rejected` list
/// does not name it. That set is what must be in Postgres at the end of a fault test.
final class AcknowledgedTraffic: Sendable {
    struct Summary: Sendable {
        var acknowledged: Set<String> = []
        var requests = 0
        var answered200 = 0
        /// Batches whose attempts ran out (not acknowledged; allowed, never counted as stored).
        var gaveUp = 0
        /// Final statuses of the batches.
        var statuses: [Int: Int] = [:]
        /// Why attempts were retried ("HTTP 503", a network error…), and how often.
        var retries: [String: Int] = [:]
    }

    private let batches: [FleetBatch]
    private let next = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let summary = Mutex(Summary())

    var batchCount: Int { batches.count }

    /// A simulated fleet of `installs` over the last `days` days.
    init(database: FaultDatabase, installs: Int, days: Int = 2, seed: UInt64) {
        let nowMs = Int64(Date().timeIntervalSince1970 * 1_000)
        var config = SimulationConfig.endingBefore(nowMs: nowMs, days: days)
        config.installs = installs
        config.seed = seed
        config.sendsPerBatch = 100
        let output = Simulation.generate(config)
        let telemetry = FleetBatch.telemetry(output, key: database.telemetryKey)
        let sends = FleetBatch.sends(output, key: database.sendsKey)
        // Interleaved, so any stretch of the run carries both kinds.
        var mixed: [FleetBatch] = []
        let stride = max(1, telemetry.count / max(1, sends.count))
        var sendIterator = sends.makeIterator()
        for (index, batch) in telemetry.enumerated() {
            mixed.append(batch)
            if index % stride == 0, let send = sendIterator.next() { mixed.append(send) }
        }
        while let send = sendIterator.next() { mixed.append(send) }
        batches = mixed
    }

    /// Posts the batches from `clients` threads until all are posted or `stop()`; the returned
    /// handle's value is the summary once every client is done. `caFile`: the CA bundle for an
    /// `https://` base URL.
    func post(to baseURL: String, clients: Int, policy: RetryPolicy, caFile: String? = nil) -> Background<Summary> {
        Background { [self] in
            let workers = (0..<clients).map { _ in
                Background { [self] in try postLoop(baseURL: baseURL, policy: policy, caFile: caFile) }
            }
            for worker in workers { try worker.value() }
            return summary.withLock { $0 }
        }
    }

    /// Clients finish the batch they are posting and take no new one.
    func stop() { stopped.store(true, ordering: .relaxed) }

    /// Requests answered so far (any status).
    var requests: Int { summary.withLock { $0.requests } }

    private func postLoop(baseURL: String, policy: RetryPolicy, caFile: String?) throws {
        let client = try HTTPClient(baseURL: baseURL, timeout: 60, connectTimeout: 5, caFile: caFile)
        client.sleep = { seconds in usleep(UInt32(seconds * 1_000_000)) }
        while !stopped.load(ordering: .relaxed) {
            let index = next.add(1, ordering: .relaxed).oldValue
            guard index < batches.count else { return }
            let batch = batches[index]
            let response: HTTPResponse?
            do {
                response = try client.postWithRetry(
                    path: batch.path, contentType: batch.contentType, bearer: batch.key, policy: policy,
                    onRetry: { _, reason in
                        summary.withLock { summary in
                            summary.requests += 1
                            summary.retries[reason, default: 0] += 1
                        }
                    },
                    makeBody: { batch.body(Int64(Date().timeIntervalSince1970 * 1_000)) })
            } catch {
                response = nil
            }
            summary.withLock { summary in
                summary.requests += 1
                guard let response else { return summary.gaveUp += 1 }
                summary.statuses[response.status, default: 0] += 1
                guard response.status == 200 else { return summary.gaveUp += 1 }
                summary.answered200 += 1
                let rejected = FleetBatch.rejectedIndexes(response.body)
                for (index, id) in batch.eventIDs.enumerated() where !rejected.contains(index) {
                    summary.acknowledged.insert(id)
                }
            }
        }
    }
}
