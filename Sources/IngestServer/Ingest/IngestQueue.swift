import Foundation
import PushLedgerContract

/// Why a unit was not stored.
enum WriteFailure: Error, Equatable {
    /// Postgres is unreachable: nothing of the unit was committed (503).
    case unavailable
    /// Any other database error (500); its detail went to the log.
    case failed
}

/// One request's validated unit waiting for a writer, with where its outcome goes.
struct IngestJob: Sendable {
    var unit: IngestUnit
    /// `?dry_run=true`: validated and de-duplicated like the others, in a transaction rolled back.
    var dryRun = false
    /// Whose share of the queue the job takes (the key's app).
    var app = ""
    var completion: @Sendable (Result<WriteOutcome, WriteFailure>) -> Void
}

/// A bounded queue of jobs drained by writer threads, fair between apps. Each app has its own
/// lane, holding at most `share` jobs, so one app's flood fills its lane (429 for that app) and
/// never the whole queue. A writer takes jobs round-robin over the lanes, one job an app a turn,
/// up to `maxBatch` jobs and `maxEvents` events (at least one job), and stores them in one
/// transaction; a request gets its answer only after that commit. The events bound keeps every
/// transaction short, so another app's request never waits long behind a flood's batch.
final class IngestQueue: Sendable {
    private let condition = NSCondition()
    nonisolated(unsafe) private var lanes: [String: [IngestJob]] = [:]
    /// Apps with jobs waiting, in turn order.
    nonisolated(unsafe) private var turns: [String] = []
    nonisolated(unsafe) private var count = 0
    nonisolated(unsafe) private var closed = false
    nonisolated(unsafe) private var runningWriters = 0
    let capacity: Int
    /// Jobs of one app waiting at most.
    let share: Int
    private let maxBatch: Int
    private let maxEvents: Int
    private let writers: Int
    private let write: @Sendable ([IngestJob]) -> Void

    /// `write` stores one batch and completes every job in it; it runs on the writer threads.
    /// `share` defaults to the whole capacity (no per-app bound).
    init(
        capacity: Int, share: Int? = nil, maxBatch: Int, maxEvents: Int = .max, writers: Int,
        write: @escaping @Sendable ([IngestJob]) -> Void
    ) {
        self.capacity = max(1, capacity)
        self.share = max(1, min(share ?? capacity, capacity))
        self.maxBatch = max(1, maxBatch)
        self.maxEvents = max(1, maxEvents)
        self.writers = max(1, writers)
        self.write = write
    }

    /// Starts the writer threads (once).
    func start() {
        let starting = condition.withLock {
            guard runningWriters == 0 && !closed else { return false }
            runningWriters = writers
            return true
        }
        guard starting else { return }
        for index in 0..<writers {
            let thread = Thread { [self] in writerLoop() }
            thread.name = "pushledger-writer-\(index)"
            thread.start()
        }
    }

    /// Jobs waiting for a writer.
    var depth: Int { condition.withLock { count } }

    var isSaturated: Bool { depth >= capacity }

    /// True when `app`'s lane is full (its requests answer 429 until it drains).
    func isShareFull(_ app: String) -> Bool { condition.withLock { (lanes[app]?.count ?? 0) >= share } }

    enum Submission { case queued, full, shareFull, closed }

    /// Adds a job unless the queue (429) or the job's app lane (429 for that app) is full, or
    /// the queue is closed for shutdown (503).
    func submit(_ job: IngestJob) -> Submission {
        condition.withLock {
            guard !closed else { return .closed }
            guard count < capacity else { return .full }
            let waiting = lanes[job.app]?.count ?? 0
            guard waiting < share else { return .shareFull }
            if waiting == 0 { turns.append(job.app) }
            lanes[job.app, default: []].append(job)
            count += 1
            condition.signal()
            return .queued
        }
    }

    /// Refuses new jobs, lets the writers store every queued one, and waits for them to exit.
    func drainAndStop() {
        condition.withLock {
            closed = true
            condition.broadcast()
            while runningWriters > 0 { condition.wait() }
        }
    }

    private func writerLoop() {
        while let batch = nextBatch() {
            write(batch)
        }
        condition.withLock {
            runningWriters -= 1
            condition.broadcast()
        }
    }

    /// Blocks until jobs are waiting; nil once closed and empty.
    private func nextBatch() -> [IngestJob]? {
        condition.withLock {
            while count == 0 && !closed { condition.wait() }
            guard count > 0 else { return nil }
            return takeRoundRobin()
        }
    }

    /// One job from each app in turn until the batch is full; an app that still has jobs goes
    /// to the back of the turns. Called with the lock held and jobs waiting.
    private func takeRoundRobin() -> [IngestJob] {
        var batch: [IngestJob] = []
        var events = 0
        while batch.count < maxBatch, let app = turns.first {
            let job = lanes[app]![0]
            guard batch.isEmpty || events + job.unit.eventCount <= maxEvents else { break }
            batch.append(job)
            events += job.unit.eventCount
            count -= 1
            turns.removeFirst()
            lanes[app]!.removeFirst()
            if lanes[app]!.isEmpty { lanes[app] = nil } else { turns.append(app) }
        }
        return batch
    }
}
