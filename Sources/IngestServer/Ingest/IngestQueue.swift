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
    var completion: @Sendable (Result<WriteOutcome, WriteFailure>) -> Void
}

/// A bounded queue of jobs drained by writer threads. Each writer takes every job waiting (up
/// to `maxBatch`), from however many requests, and stores them in one transaction; a request
/// gets its answer only after that commit.
final class IngestQueue: Sendable {
    private let condition = NSCondition()
    nonisolated(unsafe) private var pending: [IngestJob] = []
    nonisolated(unsafe) private var closed = false
    nonisolated(unsafe) private var runningWriters = 0
    let capacity: Int
    private let maxBatch: Int
    private let writers: Int
    private let write: @Sendable ([IngestJob]) -> Void

    /// `write` stores one batch and completes every job in it; it runs on the writer threads.
    init(capacity: Int, maxBatch: Int, writers: Int, write: @escaping @Sendable ([IngestJob]) -> Void) {
        self.capacity = max(1, capacity)
        self.maxBatch = max(1, maxBatch)
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
    var depth: Int { condition.withLock { pending.count } }

    var isSaturated: Bool { depth >= capacity }

    enum Submission { case queued, full, closed }

    /// Adds a job unless the queue is full (the caller answers 429) or closed for shutdown (503).
    func submit(_ job: IngestJob) -> Submission {
        condition.withLock {
            guard !closed else { return .closed }
            guard pending.count < capacity else { return .full }
            pending.append(job)
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
            while pending.isEmpty && !closed { condition.wait() }
            guard !pending.isEmpty else { return nil }
            let count = min(maxBatch, pending.count)
            let batch = Array(pending.prefix(count))
            pending.removeFirst(count)
            return batch
        }
    }
}
