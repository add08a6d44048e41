import Foundation
import HTTPClient
import Simulator
import Synchronization
import TestSupport

/// A simulated fleet posted by client threads that retry each batch until a 200 (or a long
/// deadline), keeping every attempt's answer: what each request was told, when, and what the
/// final answer says of the events earlier attempts stored. Telemetry first, then the sends
/// (a send's token registration is then stored before it).
final class FailoverTraffic: Sendable {
    /// One request and its answer; `status` nil for a network error (no answer).
    struct Attempt: Sendable {
        var started: ContinuousClock.Instant
        var ended: ContinuousClock.Instant
        var status: Int?
        var code: String?
        var message: String?
        var accepted = 0
        var duplicates = 0
        /// Indexes of the events a 200 rejected (not stored).
        var rejected: Set<Int> = []

        /// The answer said, in words, that none of the request's events was stored.
        var claimsNothingStored: Bool { message?.contains("nothing was stored") ?? false }
    }

    let batches: [FleetBatch]
    let truth: Truth
    private let next = Atomic<Int>(0)
    /// Batches from this index on wait until the gate is moved: a test times its faults by the
    /// fleet's progress, not by this machine's speed.
    private let gate = Atomic<Int>(Int.max)
    private let log: Mutex<[[Attempt]]>

    /// The fleet of `fleet` (without the simulator's deliberate re-sent batches, so a duplicate
    /// in an answer can only come from an earlier attempt of the same batch).
    init(fleet: ScaleFleet) {
        var config = fleet.config
        config.duplicateBatchShare = 0
        let output = Simulation.generate(config)
        truth = output.truth
        let telemetry = FleetBatch.telemetry(output, key: ScaleFleet.telemetryKey)
        let sends = FleetBatch.sends(output, key: ScaleFleet.sendsKey)
        batches = telemetry + sends
        log = Mutex(Array(repeating: [], count: batches.count))
    }

    var telemetryEvents: Int { truth.telemetryEvents }

    /// Posts every batch from `clients` threads, spread over `servers` (base URLs); each batch
    /// is retried on 429, 503 and network errors for up to `deadline` seconds. A `held` fleet
    /// waits for `letThrough` or `release`.
    func post(to servers: [String], clients: Int, deadline: Double = 180, held: Bool = false) -> Background<Void> {
        if held { gate.store(0, ordering: .relaxed) }
        let telemetryCount = batches.filter { $0.path == "/v1/telemetry" }.count
        return Background { [self] in
            for phase in [0..<telemetryCount, telemetryCount..<batches.count] {
                next.store(phase.lowerBound, ordering: .relaxed)
                let workers = (0..<clients).map { index in
                    Background { [self] in
                        try postLoop(servers[index % servers.count], phase: phase, deadline: deadline)
                    }
                }
                for worker in workers { try worker.value() }
            }
        }
    }

    /// Batches taken by a client so far (posted, being posted or retried).
    var taken: Int { next.load(ordering: .relaxed) }

    /// A held fleet may take `count` more batches.
    func letThrough(_ count: Int) { gate.add(count, ordering: .relaxed) }

    /// Lets a held fleet take `share` more batches and waits until half of them are taken: a
    /// fault injected then finds the fleet posting, and the other half comes around it. False if
    /// posting ended or two minutes passed first.
    func letThroughAndWaitForHalf(_ share: Int, while going: () -> Bool) -> Bool {
        let mark = gate.add(share, ordering: .relaxed).newValue - (share - share / 2)
        let end = ContinuousClock.now + .seconds(120)
        while going() && ContinuousClock.now < end {
            if taken >= mark { return true }
            usleep(20_000)
        }
        return false
    }

    /// Clients take every remaining batch.
    func release() { gate.store(Int.max, ordering: .relaxed) }

    /// Every attempt so far, per batch.
    var attempts: [[Attempt]] { log.withLock { $0 } }

    /// Event ids of the batches whose last attempt was answered 200, minus the events it rejected.
    var acknowledged: Set<String> {
        var ids: Set<String> = []
        for (batch, tries) in zip(batches, attempts) {
            guard let last = tries.last, last.status == 200 else { continue }
            ids.formUnion(batch.eventIDs.enumerated().filter { !last.rejected.contains($0.offset) }.map(\.element))
        }
        return ids
    }

    /// Batches whose attempts were all answered "nothing was stored" before a final 200 that
    /// found some of their events already stored: an answer that was false.
    var falseNothingStored: [[Attempt]] {
        attempts.filter { tries in
            guard let last = tries.last, last.status == 200, last.duplicates > 0 else { return false }
            let earlier = tries.dropLast()
            return !earlier.isEmpty && earlier.allSatisfy(\.claimsNothingStored)
        }
    }

    private func postLoop(_ baseURL: String, phase: Range<Int>, deadline: Double) throws {
        let client = try HTTPClient(baseURL: baseURL, timeout: 60, connectTimeout: 2)
        defer { client.close() }
        while true {
            let index = next.load(ordering: .relaxed)
            guard index < phase.upperBound else { return }
            guard index < gate.load(ordering: .relaxed) else {
                usleep(20_000)
                continue
            }
            guard next.compareExchange(expected: index, desired: index + 1, ordering: .relaxed).exchanged else {
                continue
            }
            let batch = batches[index]
            let giveUp = ContinuousClock.now + .seconds(deadline)
            while ContinuousClock.now < giveUp {
                let started = ContinuousClock.now
                var attempt = Attempt(started: started, ended: started)
                var retryAfter = 0.2
                do {
                    let response = try client.post(
                        path: batch.path, body: batch.body(Int64(Date().timeIntervalSince1970 * 1_000)),
                        contentType: batch.contentType,
                        gzip: true, bearer: batch.key)
                    attempt.status = response.status
                    let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
                    attempt.code = object?["error"] as? String
                    attempt.message = object?["message"] as? String
                    attempt.accepted = object?["accepted"] as? Int ?? 0
                    attempt.duplicates = object?["duplicates"] as? Int ?? 0
                    if response.status == 200 { attempt.rejected = FleetBatch.rejectedIndexes(response.body) }
                    retryAfter = min(0.5, Double(response.header("Retry-After") ?? "") ?? 0.2)
                } catch {
                    client.close()
                }
                attempt.ended = ContinuousClock.now
                log.withLock { $0[index].append(attempt) }
                if let status = attempt.status, status != 429 && status != 503 { break }
                usleep(UInt32(retryAfter * 1_000_000))
            }
        }
    }
}
